#include "wire/connect_diagnosis.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace blkperf {
namespace {

// 0 connected, else the errno (ETIMEDOUT when `timeout` passed).
int TcpConnect(const addrinfo& a, absl::Duration timeout) {
  const int fd = socket(a.ai_family, a.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        a.ai_protocol);
  if (fd < 0) return errno;
  int error = 0;
  if (connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
      if (poll(&p, 1, ms) <= 0) {
        error = ETIMEDOUT;
      } else {
        socklen_t len = sizeof(error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      }
    }
  }
  close(fd);
  return error;
}

// The status code of GetCapabilities over a channel made with `options`.
grpc::StatusCode Probe(const ChannelOptions& options, absl::Duration timeout) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      CreateBlkperfChannel(options);
  if (!channel.ok()) return grpc::StatusCode::UNAVAILABLE;
  std::unique_ptr<v1::Blkperf::Stub> stub = v1::Blkperf::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(timeout));
  v1::GetCapabilitiesRequest request;
  request.set_api_version(kClientApiVersion);
  v1::GetCapabilitiesResponse response;
  return stub->GetCapabilities(&context, request, &response).error_code();
}

bool Answered(grpc::StatusCode code) {
  return code != grpc::StatusCode::UNAVAILABLE &&
         code != grpc::StatusCode::DEADLINE_EXCEEDED;
}

}  // namespace

absl::Status CheckReachable(const std::string& server, absl::Duration timeout,
                            absl::Duration answer_window) {
  if (absl::StrContains(server, "/") || absl::StartsWith(server, "unix:")) {
    return absl::OkStatus();
  }
  const size_t colon = server.rfind(':');
  if (colon == std::string::npos) return absl::OkStatus();
  const std::string host(absl::StripSuffix(
      absl::StripPrefix(absl::string_view(server).substr(0, colon), "["), "]"));
  const std::string port = server.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &result);
      rc != 0) {
    return absl::NotFoundError(absl::StrCat("blkperfd at ", server, ": the name ",
                                            host, " does not resolve (",
                                            gai_strerror(rc), ")"));
  }
  // A refused connect is tried again for a moment: a daemon that is just
  // starting (or restarting) gets kRefusedGrace to bind its port.
  constexpr absl::Duration kRefusedGrace = absl::Milliseconds(500);
  const absl::Time give_up = absl::Now() + std::min(timeout, kRefusedGrace);
  int error = 0;
  while (true) {
    for (addrinfo* a = result; a != nullptr; a = a->ai_next) {
      error = TcpConnect(*a, timeout);
      if (error == 0) break;
    }
    if (error != ECONNREFUSED || absl::Now() >= give_up) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  freeaddrinfo(result);
  if (error == 0) return absl::OkStatus();
  if (error == ECONNREFUSED) {
    return absl::UnavailableError(absl::StrCat(
        "blkperfd at ", server, ": connection refused, nothing listens on "
        "that port (is `blkperfd serve` running there, on that port?)"));
  }
  if (error == ETIMEDOUT) {
    return absl::UnavailableError(absl::StrCat(
        "blkperfd at ", server, ": no answer within ",
        absl::FormatDuration(absl::Trunc(
            answer_window > absl::ZeroDuration() ? answer_window : timeout,
            absl::Milliseconds(1))),
        " (the host is down, or a firewall drops the packets)"));
  }
  return absl::UnavailableError(absl::StrCat("blkperfd at ", server,
                                             ": cannot connect: ",
                                             std::strerror(error)));
}

absl::Status DiagnoseHandshake(const ChannelOptions& options,
                               absl::Duration timeout) {
  const std::string& server = options.server;
  ChannelOptions plain = options;
  plain.tls_ca.clear();
  plain.tls_cert.clear();
  plain.tls_key.clear();
  plain.tls_server_name.clear();
  if (options.tls_ca.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "blkperfd at ", server, " does not answer in plaintext: it serves TLS "
        "(give --tls_ca, --tls_cert and --tls_key) or is not blkperfd's "
        "control port (e.g. its metrics port)"));
  }
  if (Answered(Probe(plain, timeout))) {
    return absl::FailedPreconditionError(absl::StrCat(
        "blkperfd at ", server, " serves plaintext (started without "
        "--tls_cert) but this client asked for TLS (--tls_ca): drop the "
        "--tls_* flags or give the daemon TLS"));
  }
  if (!options.tls_cert.empty()) {
    ChannelOptions no_cert = options;
    no_cert.tls_cert.clear();
    no_cert.tls_key.clear();
    if (Answered(Probe(no_cert, timeout))) {
      return absl::FailedPreconditionError(absl::StrCat(
          "blkperfd at ", server, " refused this client's certificate "
          "(--tls_cert): it is not signed by a CA in the daemon's "
          "--tls_client_ca (the daemon's own certificate checked out against "
          "--tls_ca)"));
    }
  }
  const std::string name =
      options.tls_server_name.empty()
          ? server.substr(0, server.rfind(':'))
          : options.tls_server_name;
  return absl::FailedPreconditionError(absl::StrCat(
      "TLS handshake with blkperfd at ", server, " failed: its certificate "
      "does not chain to --tls_ca, or names none of \"", name,
      "\" in its subject alternative names (see --tls_server_name), or the "
      "port is not blkperfd's control port"));
}

}  // namespace blkperf

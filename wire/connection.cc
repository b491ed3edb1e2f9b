#include "wire/connection.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/config_file.h"
#include "base/status_macros.h"
#include "wire/connect_diagnosis.h"
#include "wire/grpc_status.h"

namespace blkperf {
namespace {

const char* CodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kCancelled:
      return "CANCELLED";
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case absl::StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case absl::StatusCode::kNotFound:
      return "NOT_FOUND";
    case absl::StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case absl::StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case absl::StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case absl::StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case absl::StatusCode::kAborted:
      return "ABORTED";
    case absl::StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case absl::StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case absl::StatusCode::kInternal:
      return "INTERNAL";
    case absl::StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case absl::StatusCode::kDataLoss:
      return "DATA_LOSS";
    case absl::StatusCode::kUnauthenticated:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

bool Failed(grpc_connectivity_state state) {
  return state == GRPC_CHANNEL_TRANSIENT_FAILURE ||
         state == GRPC_CHANNEL_SHUTDOWN;
}

// Waits until `channel` is READY (true) or its first attempt failed or
// `deadline` passed or `canceller` was cancelled (false). Unlike
// WaitForConnected it does not wait out gRPC's reconnect backoff after a
// failed handshake: the caller says why.
bool WaitReadyOrFailed(grpc::Channel& channel,
                       std::chrono::system_clock::time_point deadline,
                       const CallCanceller* canceller) {
  // With a canceller, wait in slices to see it promptly.
  constexpr auto kSlice = std::chrono::milliseconds(20);
  grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE ||
        state == GRPC_CHANNEL_SHUTDOWN) {
      return false;
    }
    const auto now = std::chrono::system_clock::now();
    if (now >= deadline) return false;
    if (canceller != nullptr && canceller->cancelled()) return false;
    channel.WaitForStateChange(
        state, canceller == nullptr ? deadline : std::min(deadline, now + kSlice));
    state = channel.GetState(/*try_to_connect=*/true);
  }
  return true;
}

// gRPC's target for `server`: an IPv4 or IPv6 address and port names
// itself ("ipv4:10.0.0.7:7777": no resolver round through gRPC's executor
// threads per channel, thousands in a fleet); anything else is resolved as
// given. The authority (and the name TLS checks) stays "10.0.0.7:7777".
std::string ChannelTarget(const std::string& server) {
  const size_t colon = server.rfind(':');
  if (colon == std::string::npos || colon + 1 == server.size()) return server;
  uint32_t port = 0;
  if (!absl::SimpleAtoi(server.substr(colon + 1), &port) || port > 65535) {
    return server;
  }
  const std::string host = server.substr(0, colon);
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return "ipv4:" + server;
  in6_addr v6;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']' &&
      inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6) == 1) {
    return "ipv6:" + server;
  }
  return server;
}

// The deadline of a call started now: call_timeout or the budget's.
absl::Time CallDeadline(absl::Duration call_timeout, const CallBudget& budget) {
  return std::min(absl::Now() + call_timeout, budget.deadline);
}

// Waits until `channel` is READY, at most until `end`. When it does not
// get there, says why, checking TCP only now (a fleet opens thousands of
// connections: a throwaway TCP connect before each would cost every host
// a handshake): a name that does not resolve, nothing listening, no
// answer (CheckReachable), a unix socket refused, a daemon that accepted
// the connection but does not answer, or which side of the TLS handshake
// refused. A daemon that begins to listen within CheckReachable's grace
// (it was starting) gets a fresh channel for the time left.
absl::StatusOr<std::shared_ptr<grpc::Channel>> ReadyOrWhyNot(
    const ChannelOptions& options, std::shared_ptr<grpc::Channel> channel,
    absl::Duration connect_timeout, absl::Time end,
    const CallCanceller* canceller) {
  const std::string& server = options.server;
  const auto cancelled = [&] {
    return absl::CancelledError(absl::StrCat(
        "connecting to blkperfd at ", server, ": cancelled (interrupted)"));
  };
  // A channel still connecting this close to the end has its TCP checked
  // in the time left (no answer at all, or a daemon that holds the
  // handshake).
  const absl::Duration reserve =
      std::min(connect_timeout / 4, absl::Milliseconds(500));
  bool refreshed = false;
  while (true) {
    if (WaitReadyOrFailed(*channel, absl::ToChronoTime(end - reserve),
                          canceller)) {
      return channel;
    }
    if (canceller != nullptr && canceller->cancelled()) return cancelled();
    // A unix socket this user may not use, or none there.
    BLKPERF_RETURN_IF_ERROR(UnixSocketReachability(server));
    const bool connecting =
        !Failed(channel->GetState(/*try_to_connect=*/false));
    // Named causes: a name that does not resolve, nothing listening, no
    // answer within the whole connect_timeout.
    BLKPERF_RETURN_IF_ERROR(CheckReachable(
        server, std::max(absl::Milliseconds(1), end - absl::Now()),
        connect_timeout));
    if (connecting) {
      // TCP reaches the port: give the handshake the rest of the budget.
      if (WaitReadyOrFailed(*channel, absl::ToChronoTime(end), canceller)) {
        return channel;
      }
      if (canceller != nullptr && canceller->cancelled()) return cancelled();
      if (!Failed(channel->GetState(/*try_to_connect=*/false))) {
        // Not a certificate matter: the process is hung, stopped
        // (SIGSTOP, a paused VM) or overloaded.
        return absl::DeadlineExceededError(absl::StrCat(
            "blkperfd at ", server, " accepted the connection but did not ",
            "answer within ",
            absl::FormatDuration(
                absl::Trunc(connect_timeout, absl::Milliseconds(1))),
            ": the daemon is hung, paused or overloaded"));
      }
    } else if (!refreshed && end - absl::Now() > absl::ZeroDuration()) {
      // The channel failed but TCP connects now: a daemon that was
      // starting, or a handshake that fails; one fresh try tells them
      // apart (gRPC would wait out its reconnect backoff on this one).
      refreshed = true;
      BLKPERF_ASSIGN_OR_RETURN(channel, CreateBlkperfChannel(options));
      continue;
    }
    // The handshake failed: TLS against plaintext, or a certificate.
    const absl::Duration left = end - absl::Now();
    return DiagnoseHandshake(
        options,
        std::clamp(left / 2, absl::Milliseconds(50), absl::Seconds(1)));
  }
}
}  // namespace

void CallCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  for (grpc::ClientContext* context : calls_) context->TryCancel();
}

bool CallCanceller::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

CallCanceller::Scope::Scope(CallCanceller* canceller,
                            grpc::ClientContext* context)
    : canceller_(canceller), context_(context) {
  if (canceller_ == nullptr) return;
  absl::MutexLock lock(&canceller_->mu_);
  if (canceller_->cancelled_) context_->TryCancel();
  canceller_->calls_.insert(context_);
}

CallCanceller::Scope::~Scope() {
  if (canceller_ == nullptr) return;
  absl::MutexLock lock(&canceller_->mu_);
  canceller_->calls_.erase(context_);
}

absl::Status UnixSocketReachability(const std::string& server) {
  absl::string_view path = server;
  if (!absl::ConsumePrefix(&path, "unix://") &&
      !absl::ConsumePrefix(&path, "unix:")) {
    return absl::OkStatus();
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return absl::OkStatus();
  }
  path.copy(address.sun_path, path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::OkStatus();
  const int rc = connect(fd, reinterpret_cast<const sockaddr*>(&address),
                         sizeof(address));
  const int error = rc == 0 ? 0 : errno;
  close(fd);
  if (error == EACCES || error == EPERM) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot connect to blkperfd at ", server,
        ": permission denied for this user (uid ", getuid(),
        "): the socket's mode (blkperfd's --unix_socket_mode, 0660 by "
        "default) or a directory above it does not let this user in; run "
        "as its owner or a member of its group"));
  }
  if (error == ENOENT) {
    return absl::NotFoundError(absl::StrCat(
        "cannot connect to blkperfd at ", server,
        ": no socket there (is `blkperfd serve --listen=", server,
        "` running? see --server)"));
  }
  return absl::OkStatus();
}

absl::Status CheckServerApiVersion(uint32_t server_version,
                                   const std::string& server) {
  if (server_version == kClientApiVersion) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "blkperfd at ", server, " speaks blkperf API version ", server_version,
      " but this client speaks version ", kClientApiVersion,
      "; use a client and daemon of the same API version"));
}

std::chrono::system_clock::time_point DeadlineIn(absl::Duration timeout) {
  return std::chrono::system_clock::now() +
         std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout));
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> CreateBlkperfChannel(
    const ChannelOptions& options) {
  grpc::ChannelArguments args;
  // Each channel keeps its connections to itself rather than in gRPC's
  // process-wide subchannel pool (an ordered map every channel is looked up
  // in: a fleet orchestrator holds one channel per host, 10,000 of them),
  // and has no channelz node (nothing here reads channelz).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_ENABLE_CHANNELZ, 0);
  // A watch has no deadline: pings notice a daemon that went away.
  if (options.keepalive_time > absl::ZeroDuration()) {
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
                static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_time)));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                static_cast<int>(
                    absl::ToInt64Milliseconds(options.keepalive_timeout)));
  }
  if ((options.tls_cert.empty()) != (options.tls_key.empty())) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together: give both or neither");
  }
  if (options.tls_ca.empty()) {
    if (!options.tls_cert.empty()) {
      return absl::InvalidArgumentError(
          "--tls_cert needs --tls_ca (the CA the daemon's certificate chains "
          "to): a client certificate is only sent over TLS");
    }
    if (!options.tls_server_name.empty()) {
      return absl::InvalidArgumentError(
          "--tls_server_name needs --tls_ca: it names the certificate the "
          "daemon presents over TLS");
    }
    return grpc::CreateCustomChannel(ChannelTarget(options.server),
                                     grpc::InsecureChannelCredentials(), args);
  }
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  grpc::SslCredentialsOptions ssl;
  BLKPERF_ASSIGN_OR_RETURN(
      ssl.pem_root_certs,
      ReadConfigFile(options.tls_ca, kMaxConfigFileBytes, "--tls_ca"));
  if (!options.tls_cert.empty()) {
    BLKPERF_ASSIGN_OR_RETURN(
        ssl.pem_cert_chain,
        ReadConfigFile(options.tls_cert, kMaxConfigFileBytes, "--tls_cert"));
    BLKPERF_ASSIGN_OR_RETURN(
        ssl.pem_private_key,
        ReadConfigFile(options.tls_key, kMaxConfigFileBytes, "--tls_key"));
  }
  return grpc::CreateCustomChannel(ChannelTarget(options.server),
                                   grpc::SslCredentials(ssl), args);
}

Connection::Connection(std::string server,
                       std::shared_ptr<grpc::Channel> channel,
                       absl::Duration call_timeout)
    : server_(std::move(server)),
      channel_(std::move(channel)),
      call_timeout_(call_timeout),
      stub_(v1::Blkperf::NewStub(channel_)) {}

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(
    const ChannelOptions& options, absl::Duration connect_timeout,
    const CallBudget& budget) {
  const std::string& server = options.server;
  BLKPERF_ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel,
                           CreateBlkperfChannel(options));
  connect_timeout = std::max(
      absl::ZeroDuration(),
      std::min(connect_timeout, budget.deadline - absl::Now()));
  const auto cancelled = [&] {
    return absl::CancelledError(absl::StrCat(
        "connecting to blkperfd at ", server, ": cancelled (interrupted)"));
  };
  if (budget.canceller != nullptr && budget.canceller->cancelled()) {
    return cancelled();
  }
  if (connect_timeout <= absl::ZeroDuration()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "no time left in the step's budget to connect to blkperfd at ",
        server));
  }
  // One budget for the whole open: a caller's step deadline (a fleet's
  // --arm_timeout) is never overrun by the diagnosis.
  const absl::Time end = absl::Now() + connect_timeout;
  BLKPERF_ASSIGN_OR_RETURN(
      channel, ReadyOrWhyNot(options, std::move(channel), connect_timeout, end,
                             budget.canceller));
  std::unique_ptr<Connection> connection(
      new Connection(server, channel, options.call_timeout));
  if (!options.fetch_capabilities) return connection;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(end + absl::Seconds(5)));
  v1::GetCapabilitiesRequest request;
  request.set_api_version(kClientApiVersion);
  const grpc::Status status =
      connection->stub_->GetCapabilities(&context, request, &connection->caps_);
  if (!status.ok()) {
    absl::Status s = FromGrpcStatus(status);
    return absl::Status(s.code(),
                        absl::StrCat("GetCapabilities from ", server, ": ",
                                     CodeName(s.code()), ": ", s.message()));
  }
  absl::Status version =
      CheckServerApiVersion(connection->caps_.api_version(), server);
  if (!version.ok()) return version;
  return connection;
}

absl::Status Connection::Check(const grpc::Status& status, uint32_t api_version,
                               const char* what) const {
  if (!status.ok()) {
    const absl::Status s = FromGrpcStatus(status);
    return absl::Status(s.code(), absl::StrCat(what, ": ", CodeName(s.code()),
                                               ": ", s.message()));
  }
  return CheckServerApiVersion(api_version, server_);
}

#define BLKPERF_UNARY_CALL(Method)                                        \
  absl::StatusOr<v1::Method##Response> Connection::Method(                \
      v1::Method##Request request, const CallBudget& budget) {            \
    request.set_api_version(kClientApiVersion);                           \
    const absl::Time deadline = CallDeadline(call_timeout_, budget);      \
    if (deadline <= absl::Now()) {                                        \
      return absl::DeadlineExceededError(                                 \
          #Method ": DEADLINE_EXCEEDED: no time left in the step's "      \
          "budget to call blkperfd at " + server_);                       \
    }                                                                     \
    grpc::ClientContext context;                                          \
    context.set_deadline(absl::ToChronoTime(deadline));                   \
    CallCanceller::Scope scope(budget.canceller, &context);               \
    v1::Method##Response response;                                        \
    const grpc::Status rpc = stub_->Method(&context, request, &response); \
    absl::Status status = Check(rpc, response.api_version(), #Method);    \
    if (!status.ok()) return status;                                      \
    return response;                                                      \
  }

BLKPERF_UNARY_CALL(GetCapabilities)
BLKPERF_UNARY_CALL(ProbeTarget)
BLKPERF_UNARY_CALL(StartWorkload)
BLKPERF_UNARY_CALL(StopWorkload)
BLKPERF_UNARY_CALL(GetWorkload)
BLKPERF_UNARY_CALL(ListWorkloads)
BLKPERF_UNARY_CALL(SetSplitStrategy)
BLKPERF_UNARY_CALL(ArmWorkload)
BLKPERF_UNARY_CALL(GetClock)
BLKPERF_UNARY_CALL(GoWorkload)
BLKPERF_UNARY_CALL(AbortRun)

#undef BLKPERF_UNARY_CALL

absl::Status Connection::WatchWorkload(
    v1::WatchWorkloadRequest request,
    const std::function<bool(const v1::WatchWorkloadResponse&)>& on_message) {
  request.set_api_version(kClientApiVersion);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchWorkloadResponse>> reader =
      stub_->WatchWorkload(&context, request);
  v1::WatchWorkloadResponse response;
  bool cancelled = false;
  while (reader->Read(&response)) {
    if (absl::Status v = CheckServerApiVersion(response.api_version(), server_);
        !v.ok()) {
      context.TryCancel();
      reader->Finish();
      return v;
    }
    if (!on_message(response)) {
      cancelled = true;
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = reader->Finish();
  if (cancelled) return absl::CancelledError("watch ended by the client");
  if (!status.ok()) {
    const absl::Status s = FromGrpcStatus(status);
    return absl::Status(
        s.code(),
        absl::StrCat("WatchWorkload: ", CodeName(s.code()), ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace blkperf

// blkperfd's own listening socket and accept loop, handing each connection
// to gRPC (ServerBuilder's external connection acceptor).
//
// Why not gRPC's listener: Debian's gRPC 1.51 closes its listener for good
// on the first accept4() error other than EAGAIN, so one EMFILE (a burst of
// watchers under a low RLIMIT_NOFILE) left the daemon deaf forever. This
// loop waits and retries on EMFILE/ENFILE (logging once per streak) and on
// any other error, so the daemon accepts again as soon as descriptors free
// up. It also binds without SO_REUSEPORT, so a second daemon on the same
// port fails to start instead of sharing the calls. A loopback listen
// (127.0.0.1, localhost, [::1]; 0.0.0.0 too) also listens on the other
// family's loopback at the same port (its companion), since a client
// naming "localhost" may connect to either: no other process can then
// answer there (a second daemon on [::1]:P beside one on 127.0.0.1:P fails
// to start). A host without that loopback (no IPv6) gets no companion.
//
//   absl::StatusOr<std::unique_ptr<AcceptLoop>> loop =
//       AcceptLoop::Bind("127.0.0.1:0");
//   auto acceptor = builder.experimental().AddExternalConnectionAcceptor(
//       ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
//       creds);
//   server = builder.BuildAndStart();
//   (*loop)->Start(std::move(acceptor));   // ~AcceptLoop stops it
#ifndef BLKPERF_DAEMON_SERVICE_ACCEPT_LOOP_H_
#define BLKPERF_DAEMON_SERVICE_ACCEPT_LOOP_H_

#include <grpcpp/server_builder.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "absl/status/statusor.h"

namespace blkperf {

class AcceptLoop {
 public:
  // Binds and listens on `listen`: host:port (port 0 picks one, with a
  // free companion) or unix:/path (the caller checked the path is free; a
  // stale socket file is replaced). Unavailable naming --listen when the
  // address or its companion is in use.
  // A unix socket file gets `unix_mode` before listen(): created with it
  // (fchmod before bind; whatever the umask) and set exactly before the
  // first connection can be accepted.
  static absl::StatusOr<std::unique_ptr<AcceptLoop>> Bind(
      const std::string& listen, mode_t unix_mode = 0600);
  // Stops the loop and closes the listening socket.
  ~AcceptLoop();
  AcceptLoop(const AcceptLoop&) = delete;
  AcceptLoop& operator=(const AcceptLoop&) = delete;

  // The bound TCP port; 0 for a unix socket.
  int port() const { return port_; }
  // "[::1]:7777" (or "127.0.0.1:7777") when the companion loopback is
  // listened on too; "" otherwise.
  const std::string& companion() const { return companion_; }

  // Starts the accept thread. REQUIRES: called once, after the server using
  // `acceptor` has started.
  void Start(
      std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor);

  // Stops accepting (idempotent); connections already handed over stay.
  void Stop();

 private:
  AcceptLoop(std::vector<int> listen_fds, int stop_fd, int port,
             std::string companion)
      : listen_fds_(std::move(listen_fds)),
        stop_fd_(stop_fd),
        port_(port),
        companion_(std::move(companion)) {}
  void Run();
  // Accepts one pending connection of `listen_fd` and hands it to gRPC.
  // 0, or the errno of a failed accept (none pending is 0).
  int AcceptOne(int listen_fd);

  const std::vector<int> listen_fds_;
  const int stop_fd_;  // eventfd: readable once Stop is called
  const int port_;
  const std::string companion_;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  std::thread thread_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_ACCEPT_LOOP_H_

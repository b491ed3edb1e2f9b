// blkperfd's own listening socket and accept loop, handing each connection
// to gRPC (ServerBuilder's external connection acceptor).
//
// Why not gRPC's listener: Debian's gRPC 1.51 closes its listener for good
// on the first accept4() error other than EAGAIN, so one EMFILE (a burst of
// watchers under a low RLIMIT_NOFILE) left the daemon deaf forever. This
// loop waits and retries on EMFILE/ENFILE (logging once per streak) and on
// any other error, so the daemon accepts again as soon as descriptors free
// up. It also binds without SO_REUSEPORT, so a second daemon on the same
// port fails to start instead of sharing the calls.
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

#include <sys/types.h>

#include "absl/status/statusor.h"

namespace blkperf {

class AcceptLoop {
 public:
  // Binds and listens on `listen`: host:port (port 0 picks one) or
  // unix:/path (the caller checked the path is free; a stale socket file is
  // replaced). Unavailable naming --listen when the address is in use.
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

  // Starts the accept thread. REQUIRES: called once, after the server using
  // `acceptor` has started.
  void Start(
      std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor);

  // Stops accepting (idempotent); connections already handed over stay.
  void Stop();

 private:
  AcceptLoop(int listen_fd, int stop_fd, int port)
      : listen_fd_(listen_fd), stop_fd_(stop_fd), port_(port) {}
  void Run();

  const int listen_fd_;
  const int stop_fd_;  // eventfd: readable once Stop is called
  const int port_;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  std::thread thread_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_ACCEPT_LOOP_H_

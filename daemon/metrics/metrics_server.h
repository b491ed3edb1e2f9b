// The daemon's Prometheus endpoint: serves GET /metrics over HTTP
// (civetweb, as prometheus-cpp's pull exposer does, without its own
// exposer_* metrics; the text from exposition.h). Everything is collected at scrape time from
// a WorkloadLister and /proc/self (see workload_collector.h and
// process_collector.h); the engine's hot path is never touched.
//
//   absl::StatusOr<std::unique_ptr<MetricsServer>> metrics =
//       StartMetricsServer("127.0.0.1:9477", lister,
//                          {.finished_ttl = absl::Minutes(5),
//                           .daemon_version = kDaemonVersion});
//   if (!metrics.ok()) return metrics.status();
//   ... (*metrics)->address() ...   // "127.0.0.1:9477"
//   metrics->reset();               // stops serving; do it before the lister's
//                                   // captures (the WorkloadManager) go away
#ifndef BLKPERF_DAEMON_METRICS_METRICS_SERVER_H_
#define BLKPERF_DAEMON_METRICS_METRICS_SERVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/metrics/workload_metrics_view.h"

class CivetServer;
namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace blkperf {

struct MetricsOptions {
  // How long a terminal workload's series are still exported after its
  // finished_at (daemon flag --metrics_finished_ttl).
  absl::Duration finished_ttl = absl::Minutes(5);
  // The `version` label of blkperf_build_info.
  std::string daemon_version = "unknown";
  // HTTP worker threads.
  size_t http_threads = 2;
};

class MetricsServer {
 public:
  // Stops serving; a scrape in progress finishes first. After this returns
  // the lister is never called again.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The address with the bound port, e.g. "127.0.0.1:9477".
  const std::string& address() const { return address_; }
  int port() const { return port_; }

 private:
  friend absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetricsServer(
      const std::string&, WorkloadLister, MetricsOptions);
  MetricsServer() = default;
  class Handler;

  std::string address_;
  int port_ = 0;
  std::shared_ptr<prometheus::Collectable> workloads_;
  std::shared_ptr<prometheus::Collectable> process_;
  std::unique_ptr<Handler> handler_;
  // Declared last: destroyed first, so no request runs while the handler
  // and collectors go.
  std::unique_ptr<CivetServer> server_;
};

// Serves /metrics on `listen_address`, "host:port" with a numeric IPv4 host
// or a bracketed IPv6 one ("[::1]:9477"); port 0 picks a free port.
// InvalidArgument naming metrics_listen when the address is malformed;
// Unavailable when it cannot be bound. REQUIRES: `lister` is callable and
// thread-safe, and stays valid until the server is destroyed.
absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetricsServer(
    const std::string& listen_address, WorkloadLister lister,
    MetricsOptions options = {});

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_METRICS_METRICS_SERVER_H_

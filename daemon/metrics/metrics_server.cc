#include "daemon/metrics/metrics_server.h"

#include <exception>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "daemon/metrics/process_collector.h"
#include "daemon/metrics/workload_collector.h"
#include "prometheus/exposer.h"

namespace blkperf {
namespace {

// Splits "host:port" / "[v6]:port" into host (brackets kept) and port.
absl::Status SplitHostPort(absl::string_view address, std::string* host,
                           int* port) {
  const size_t colon = address.rfind(':');
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics_listen \"", address, "\" ", why,
                     " (want host:port, e.g. 127.0.0.1:9477 or [::1]:9477)"));
  };
  if (colon == absl::string_view::npos || colon == 0) {
    return bad("has no host:port");
  }
  const absl::string_view host_part = address.substr(0, colon);
  if (host_part.front() == '['
          ? host_part.back() != ']'
          : host_part.find(':') != absl::string_view::npos) {
    return bad("needs brackets around an IPv6 host");
  }
  if (!absl::SimpleAtoi(address.substr(colon + 1), port) || *port < 0 ||
      *port > 65535) {
    return bad("has no port number in 0..65535");
  }
  *host = std::string(host_part);
  return absl::OkStatus();
}

}  // namespace

MetricsServer::~MetricsServer() {
  // The exposer's threads call the collectors; stop them first.
  exposer_.reset();
}

absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetricsServer(
    const std::string& listen_address, WorkloadLister lister,
    MetricsOptions options) {
  std::string host;
  int port = 0;
  if (absl::Status s = SplitHostPort(listen_address, &host, &port); !s.ok()) {
    return s;
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  try {
    server->exposer_ = std::make_unique<prometheus::Exposer>(
        listen_address, options.http_threads);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "metrics_listen ", listen_address, ": cannot listen: ", e.what()));
  }
  const std::vector<int> ports = server->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen ", listen_address, ": no listening port"));
  }
  server->port_ = ports.front();
  server->address_ = absl::StrCat(host, ":", server->port_);
  server->workloads_ = std::make_shared<WorkloadCollector>(
      std::move(lister),
      WorkloadCollector::Options{.finished_ttl = options.finished_ttl});
  server->process_ =
      std::make_shared<ProcessCollector>(std::move(options.daemon_version));
  server->exposer_->RegisterCollectable(server->process_);
  server->exposer_->RegisterCollectable(server->workloads_);
  return server;
}

}  // namespace blkperf

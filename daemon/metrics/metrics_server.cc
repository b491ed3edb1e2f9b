#include "daemon/metrics/metrics_server.h"

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "CivetServer.h"
#include "daemon/metrics/exposition.h"
#include "daemon/metrics/process_collector.h"
#include "daemon/metrics/workload_collector.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

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

// GET /metrics: collects every collectable and writes the exposition text
// (exposition.h) in one response.
class MetricsServer::Handler final : public CivetHandler {
 public:
  explicit Handler(
      std::vector<std::shared_ptr<prometheus::Collectable>> collectables)
      : collectables_(std::move(collectables)) {}

  bool handleGet(CivetServer* /*server*/, mg_connection* conn) override {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& c : collectables_) {
      for (prometheus::MetricFamily& f : c->Collect()) {
        families.push_back(std::move(f));
      }
    }
    const std::string body = ExpositionText(families);
    mg_printf(conn,
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: %zu\r\n\r\n",
              body.size());
    mg_write(conn, body.data(), body.size());
    return true;
  }

 private:
  const std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
};

MetricsServer::~MetricsServer() {
  // The server's threads call the collectors; stop them first.
  server_.reset();
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
  server->workloads_ = std::make_shared<WorkloadCollector>(
      std::move(lister),
      WorkloadCollector::Options{.finished_ttl = options.finished_ttl});
  server->process_ =
      std::make_shared<ProcessCollector>(std::move(options.daemon_version));
  server->handler_ = std::make_unique<MetricsServer::Handler>(
      std::vector<std::shared_ptr<prometheus::Collectable>>{
          server->process_, server->workloads_});
  try {
    server->server_ = std::make_unique<CivetServer>(std::vector<std::string>{
        "listening_ports", listen_address, "num_threads",
        std::to_string(options.http_threads)});
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "metrics_listen ", listen_address, ": cannot listen: ", e.what()));
  }
  const std::vector<int> ports = server->server_->getListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen ", listen_address, ": no listening port"));
  }
  server->port_ = ports.front();
  server->address_ = absl::StrCat(host, ":", server->port_);
  server->server_->addHandler("/metrics", server->handler_.get());
  return server;
}

}  // namespace blkperf

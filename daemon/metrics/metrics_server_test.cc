#include "daemon/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// GET `path` from 127.0.0.1:`port`; the whole response, headers included.
std::string HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "socket failed";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "connect failed";
  }
  const std::string request =
      absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: localhost\r\n\r\n");
  if (write(fd, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return "write failed";
  }
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) response.append(buffer, n);
  close(fd);
  return response;
}

WorkloadLister OneWorkload(std::atomic<int>* calls) {
  return [calls] {
    calls->fetch_add(1);
    WorkloadMetricsView v;
    v.id = "w1";
    v.targets = {"/tmp/f"};
    v.op = "randread";
    v.split_strategy = "none";
    v.snapshot.state = WorkloadState::kRunning;
    ThreadSnapshot t;
    t.cpu = 0;
    t.ios = t.read_ios = 42;
    v.snapshot.threads = {t};
    v.snapshot.total = t;
    return std::vector{v};
  };
}

TEST(MetricsServerTest, ServesWorkloadAndDaemonMetricsAtScrapeTime) {
  std::atomic<int> calls{0};
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = StartMetricsServer(
      "127.0.0.1:0", OneWorkload(&calls), {.daemon_version = "9.9.9"});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_GT((*server)->port(), 0);
  EXPECT_EQ((*server)->address(),
            absl::StrCat("127.0.0.1:", (*server)->port()));
  EXPECT_EQ(calls.load(), 0);  // nothing is collected before a scrape

  const std::string response = HttpGet((*server)->port(), "/metrics");
  EXPECT_THAT(response, HasSubstr("200 OK"));
  EXPECT_THAT(response, HasSubstr(R"(blkperf_build_info{version="9.9.9"} 1)"));
  EXPECT_THAT(
      response,
      HasSubstr(
          R"(blkperf_ios_total{workload="w1",target="/tmp/f",cpu="0",op="read"} 42)"));
  EXPECT_THAT(response, HasSubstr("blkperf_process_resident_memory_bytes "));
  // The 1 ms bucket's edge as written, without binary noise.
  EXPECT_THAT(response, HasSubstr(R"(,le="0.000999424"} 0)"));
  EXPECT_THAT(response, HasSubstr("Content-Type: text/plain; version=0.0.4"));
  // Only blkperf_ families: no unprefixed exposer_* of the HTTP library.
  EXPECT_THAT(response, Not(HasSubstr("exposer_")));
  EXPECT_EQ(calls.load(), 1);
  HttpGet((*server)->port(), "/metrics");
  EXPECT_EQ(calls.load(), 2);

  const int port = (*server)->port();
  server->reset();
  EXPECT_EQ(HttpGet(port, "/metrics"), "connect failed");
  EXPECT_EQ(calls.load(), 2);
}

TEST(MetricsServerTest, MalformedAddressIsInvalidArgumentNamingTheFlag) {
  for (const char* address : {"", "127.0.0.1", "127.0.0.1:http", ":9477",
                              "127.0.0.1:70000", "::1:9477"}) {
    std::atomic<int> calls{0};
    absl::StatusOr<std::unique_ptr<MetricsServer>> server =
        StartMetricsServer(address, OneWorkload(&calls));
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument)
        << address;
    EXPECT_THAT(server.status().message(), HasSubstr("metrics_listen"));
  }
}

TEST(MetricsServerTest, PortInUseIsUnavailable) {
  std::atomic<int> calls{0};
  absl::StatusOr<std::unique_ptr<MetricsServer>> first =
      StartMetricsServer("127.0.0.1:0", OneWorkload(&calls));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<MetricsServer>> second =
      StartMetricsServer((*first)->address(), OneWorkload(&calls));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr((*first)->address()));
}

}  // namespace
}  // namespace blkperf

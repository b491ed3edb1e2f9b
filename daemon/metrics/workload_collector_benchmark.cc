// What one scrape costs the daemon: building every family from the views
// and serializing them, for a workload with 1..64 submitter threads. Runs on
// the HTTP thread, never on a submitter.
#include <sstream>
#include <vector>

#include "benchmark/benchmark.h"
#include "daemon/metrics/workload_collector.h"
#include "prometheus/text_serializer.h"

namespace blkperf {
namespace {

WorkloadMetricsView View(int threads) {
  WorkloadMetricsView v;
  v.id = "w1";
  v.spec_summary = "randread bs=4096 qd=128 threads=8 targets=/dev/nvme0n1";
  v.split_strategy = "none";
  v.targets = {"/dev/nvme0n1"};
  v.op = "randread";
  v.snapshot.state = WorkloadState::kRunning;
  for (int i = 0; i < threads; ++i) {
    ThreadSnapshot t;
    t.thread_index = i;
    t.cpu = i;
    t.ios = t.read_ios = 1'000'000 + i;
    t.bytes = t.read_bytes = t.ios * 4096;
    for (uint64_t ns = 5'000; ns < 5'000'000; ns = ns * 11 / 10) {
      t.latency.RecordN(ns, 100);
    }
    v.snapshot.total.Merge(t);
    v.snapshot.threads.push_back(t);
  }
  return v;
}

void BM_Scrape(benchmark::State& state) {
  const std::vector<WorkloadMetricsView> views = {
      View(static_cast<int>(state.range(0)))};
  WorkloadCollector collector([&] { return views; }, {});
  prometheus::TextSerializer serializer;
  size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    serializer.Serialize(out, collector.CollectAt(absl::Now()));
    bytes = out.str().size();
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Scrape)->Arg(1)->Arg(8)->Arg(64);

}  // namespace
}  // namespace blkperf

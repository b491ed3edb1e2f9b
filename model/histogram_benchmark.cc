// Cost of the per-completion Record path and of the stats-side queries.
//
//   bazel run -c opt //model:histogram_benchmark
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "model/histogram.h"

namespace blkperf {
namespace {

// Latencies drawn up front so the loop measures Record, not the RNG. A
// power-of-two count lets the index wrap with a mask.
constexpr size_t kNumValues = 1 << 14;

const std::vector<uint64_t>& RandomLatencies() {
  static const std::vector<uint64_t>* values = [] {
    auto* v = new std::vector<uint64_t>;
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> ln(std::log(50'000.0), 1.5);
    for (size_t i = 0; i < kNumValues; ++i) {
      v->push_back(static_cast<uint64_t>(ln(rng)));
    }
    return v;
  }();
  return *values;
}

void BM_LiveRecord(benchmark::State& state) {
  const std::vector<uint64_t>& values = RandomLatencies();
  auto live = std::make_unique<LiveLatencyHistogram>();
  size_t i = 0;
  for (auto _ : state) {
    live->Record(values[i++ & (kNumValues - 1)]);
  }
  benchmark::DoNotOptimize(live.get());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LiveRecord);

void BM_LiveRecordN(benchmark::State& state) {
  const std::vector<uint64_t>& values = RandomLatencies();
  auto live = std::make_unique<LiveLatencyHistogram>();
  size_t i = 0;
  for (auto _ : state) {
    live->RecordN(values[i++ & (kNumValues - 1)], 8);
  }
  benchmark::DoNotOptimize(live.get());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LiveRecordN);

void BM_PlainRecord(benchmark::State& state) {
  const std::vector<uint64_t>& values = RandomLatencies();
  auto h = std::make_unique<LatencyHistogram>();
  size_t i = 0;
  for (auto _ : state) {
    h->Record(values[i++ & (kNumValues - 1)]);
  }
  benchmark::DoNotOptimize(h.get());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PlainRecord);

std::unique_ptr<LatencyHistogram> FilledHistogram() {
  auto h = std::make_unique<LatencyHistogram>();
  for (int round = 0; round < 64; ++round) {
    for (uint64_t v : RandomLatencies()) h->Record(v);
  }
  return h;
}

// Arg is the percentile times 100 (benchmark args are integers).
void BM_Percentile(benchmark::State& state) {
  const std::unique_ptr<LatencyHistogram> h = FilledHistogram();
  const double p = static_cast<double>(state.range(0)) / 100.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(h->Percentile(p));
  }
}
BENCHMARK(BM_Percentile)->Arg(5000)->Arg(9900)->Arg(9999);

void BM_SnapshotTo(benchmark::State& state) {
  auto live = std::make_unique<LiveLatencyHistogram>();
  for (uint64_t v : RandomLatencies()) live->Record(v);
  auto out = std::make_unique<LatencyHistogram>();
  for (auto _ : state) {
    live->SnapshotTo(out.get());
    benchmark::DoNotOptimize(out.get());
  }
}
BENCHMARK(BM_SnapshotTo);

}  // namespace
}  // namespace blkperf

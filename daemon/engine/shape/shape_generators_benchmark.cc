// Per-I/O cost of the shape generators, next to what the plain loop does
// for a uniform offset (one xorshift64* and a multiply-shift):
//
//   bazel run -c opt //daemon/engine/shape:shape_generators_benchmark
//
// Each iteration draws what one I/O needs, random numbers included.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "daemon/engine/shape/block_size_mix.h"
#include "daemon/engine/shape/offset_distribution.h"
#include "daemon/engine/shape/rate_pacer.h"

namespace blkperf {
namespace {

constexpr uint64_t kSlots = uint64_t{1} << 28;  // 1 TiB of 4 KiB slots

inline uint64_t Next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

// The plain loop's uniform offset.
void BM_PlainUniformSlot(benchmark::State& state) {
  uint64_t rng = 1, sum = 0;
  for (auto _ : state) {
    sum += static_cast<uint64_t>(
        (static_cast<unsigned __int128>(Next(&rng)) * kSlots) >> 64);
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_PlainUniformSlot);

void BM_OffsetSampler(benchmark::State& state, const char* text) {
  const OffsetSampler sampler =
      *OffsetSampler::Create(*ParseOffsetDistribution(text, "d"), kSlots);
  uint64_t rng = 1, sum = 0;
  for (auto _ : state) sum += sampler.Sample(Next(&rng), Next(&rng));
  benchmark::DoNotOptimize(sum);
  state.SetLabel(absl::StrCat(sampler.buckets().size(), " buckets"));
}
BENCHMARK_CAPTURE(BM_OffsetSampler, uniform, "uniform");
BENCHMARK_CAPTURE(BM_OffsetSampler, zipf_1_2, "zipf:1.2");
BENCHMARK_CAPTURE(BM_OffsetSampler, pareto_0_2, "pareto:0.2");
BENCHMARK_CAPTURE(BM_OffsetSampler, normal_0_05, "normal:0.05");

void BM_BlockSizeMix(benchmark::State& state) {
  const BlockSizeMix mix = *BlockSizeMix::Create(
      *ParseBlockSizeSplit("4k/70:64k/20:1m/10", "b"), 4096);
  uint64_t rng = 1, sum = 0;
  for (auto _ : state) sum += mix.Sample(Next(&rng));
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_BlockSizeMix);

void BM_PacerPoisson(benchmark::State& state) {
  RatePacer pacer;
  pacer.Reset({.per_second = 20000, .arrivals = Arrivals::kPoisson}, 0);
  uint64_t rng = 1;
  int64_t sum = 0;
  for (auto _ : state) {
    sum += pacer.next_ns();
    pacer.Advance(Next(&rng), 4096);
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_PacerPoisson);

}  // namespace
}  // namespace blkperf

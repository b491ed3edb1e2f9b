// Cutting 1 MiB I/Os on 4 KiB pages: Splitter's O(1) arithmetic against the
// reference that walks block by block and segment by segment.
//
//   bazel run -c opt //daemon/engine/split:split_plan_benchmark
#include <array>
#include <cstdint>
#include <random>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "daemon/engine/split/internal/split_plan_reference.h"
#include "daemon/engine/split/split_plan.h"
#include "model/split_strategy.h"

namespace blkperf {
namespace {

constexpr uint32_t kIoBytes = 1 << 20;
constexpr unsigned kPageShift = 12;
constexpr int kSlots = 256;

struct Config {
  const char* name;
  DeviceSplitLimits limits;
};

// Each binds on a different limit.
const Config kConfigs[] = {
    // NVMe with a 128 KiB MDTS: max_io binds, 8 pieces.
    {"nvme_max_io_128k",
     {.logical_block_size = 512,
      .max_io_bytes = 128 << 10,
      .max_segments = 127,
      .max_segment_size = 0,
      .chunk_bytes = 0,
      .virt_boundary_mask = 4095}},
    // 32 segments of 4 KiB pages: segments bind, 8 or 9 pieces.
    {"segments_32",
     {.logical_block_size = 512,
      .max_io_bytes = 1 << 20,
      .max_segments = 32,
      .max_segment_size = 65536,
      .chunk_bytes = 0,
      .virt_boundary_mask = 0}},
    // A striped device: 128 KiB chunks under a 512 KiB max_io.
    {"chunk_128k",
     {.logical_block_size = 4096,
      .max_io_bytes = 512 << 10,
      .max_segments = 128,
      .max_segment_size = 65536,
      .chunk_bytes = 128 << 10,
      .virt_boundary_mask = 0}},
};

struct Offsets {
  uint64_t dev_off;
  uint64_t buf_off;
};

std::array<Offsets, kSlots> MakeOffsets() {
  std::array<Offsets, kSlots> offsets;
  std::mt19937_64 rng(1);
  for (int i = 0; i < kSlots; ++i) {
    // Random 4 KiB-aligned device offsets in 1 TiB; registered buffers one
    // per slot, every fourth starting 512 bytes into a page.
    offsets[i].dev_off = (rng() % (uint64_t{1} << 28)) << 12;
    offsets[i].buf_off =
        uint64_t{static_cast<uint64_t>(i)} * kIoBytes + (i % 4 == 3 ? 512 : 0);
  }
  return offsets;
}

template <bool kReference>
void BM_Cut1MiB(benchmark::State& state) {
  const Config& config = kConfigs[state.range(0)];
  SplitStrategy limits_strategy;
  limits_strategy.kind = SplitStrategy::Kind::kLimits;
  absl::StatusOr<Splitter> splitter =
      Splitter::Create(limits_strategy, config.limits, kPageShift);
  if (!splitter.ok()) {
    state.SkipWithError(splitter.status().ToString().c_str());
    return;
  }
  const std::array<Offsets, kSlots> offsets = MakeOffsets();

  uint64_t pieces = 0;
  unsigned slot = 0;
  for (auto _ : state) {
    const Offsets& o = offsets[slot++ % kSlots];
    for (uint32_t done = 0; done < kIoBytes;) {
      uint32_t piece;
      if constexpr (kReference) {
        piece = internal::NextPieceLengthReference(
            limits_strategy, config.limits, kPageShift, o.dev_off + done,
            o.buf_off + done, kIoBytes - done);
      } else {
        piece = splitter->NextPieceLength(o.dev_off + done, o.buf_off + done,
                                          kIoBytes - done);
      }
      benchmark::DoNotOptimize(piece);
      done += piece;
      ++pieces;
    }
  }
  state.SetLabel(config.name);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * int64_t{kIoBytes});
  state.counters["pieces_per_io"] = benchmark::Counter(
      static_cast<double>(pieces) / static_cast<double>(state.iterations()));
}

BENCHMARK_TEMPLATE(BM_Cut1MiB, false)
    ->Name("BM_Cut1MiB/arithmetic")
    ->DenseRange(0, 2);
BENCHMARK_TEMPLATE(BM_Cut1MiB, true)
    ->Name("BM_Cut1MiB/reference")
    ->DenseRange(0, 2);

}  // namespace
}  // namespace blkperf

#include "daemon/engine/split/split_plan.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "daemon/engine/split/internal/split_plan_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/split_strategy.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

SplitStrategy None() { return SplitStrategy{}; }
SplitStrategy Limits() {
  SplitStrategy s;
  s.kind = SplitStrategy::Kind::kLimits;
  return s;
}
SplitStrategy Fixed(uint64_t bytes) {
  SplitStrategy s;
  s.kind = SplitStrategy::Kind::kFixed;
  s.fixed_bytes = bytes;
  return s;
}

Splitter MustCreate(const SplitStrategy& strategy,
                    const DeviceSplitLimits& limits, unsigned page_shift) {
  absl::StatusOr<Splitter> splitter =
      Splitter::Create(strategy, limits, page_shift);
  EXPECT_TRUE(splitter.ok()) << splitter.status();
  return splitter.ok() ? *splitter : Splitter();
}

// Cuts a whole I/O; returns the piece lengths.
std::vector<uint32_t> Cut(const Splitter& splitter, uint64_t dev_off,
                          uint64_t buf_off, uint32_t len) {
  std::vector<uint32_t> pieces;
  for (uint32_t done = 0; done < len;) {
    const uint32_t piece =
        splitter.NextPieceLength(dev_off + done, buf_off + done, len - done);
    if (piece == 0 || piece > len - done) {
      ADD_FAILURE() << "piece " << piece << " with " << len - done << " left";
      break;
    }
    pieces.push_back(piece);
    done += piece;
  }
  return pieces;
}

std::string Describe(const SplitStrategy& strategy,
                     const DeviceSplitLimits& limits, unsigned page_shift,
                     uint64_t dev_off, uint64_t buf_off, uint64_t len) {
  return absl::StrCat(
      SplitStrategyName(strategy), " lbs=", limits.logical_block_size,
      " max_io=", limits.max_io_bytes, " max_segments=", limits.max_segments,
      " max_segment_size=", limits.max_segment_size,
      " chunk=", limits.chunk_bytes, " virt=", limits.virt_boundary_mask,
      " page_shift=", page_shift, " dev_off=", dev_off, " buf_off=", buf_off,
      " len=", len);
}

// ---------------------------------------------------------------------------
// SegmentCount

TEST(SegmentCountTest, ExamplesOnFourKiBPages) {
  EXPECT_EQ(SegmentCount(0, 1, 12), 1u);
  EXPECT_EQ(SegmentCount(0, 4096, 12), 1u);
  EXPECT_EQ(SegmentCount(0, 4097, 12), 2u);
  EXPECT_EQ(SegmentCount(512, 4096, 12), 2u);
  EXPECT_EQ(SegmentCount(4095, 1, 12), 1u);
  EXPECT_EQ(SegmentCount(4095, 2, 12), 2u);
  EXPECT_EQ(SegmentCount(3 * 4096, 4096, 12), 1u);  // offset is mod page
  EXPECT_EQ(SegmentCount(0, kMiB, 12), 256u);
  EXPECT_EQ(SegmentCount(512, kMiB, 12), 257u);
  EXPECT_EQ(SegmentCount(4096 + 512, kMiB - 512, 12), 256u);
}

TEST(SegmentCountTest, ExamplesOnHugePages) {
  EXPECT_EQ(SegmentCount(0, 2 * kMiB, 21), 1u);
  EXPECT_EQ(SegmentCount(kMiB, 2 * kMiB, 21), 2u);
  EXPECT_EQ(SegmentCount(2 * kMiB - 4096, 8192, 21), 2u);
  EXPECT_EQ(SegmentCount(5 * kMiB, kMiB, 21), 1u);
  EXPECT_EQ(SegmentCount(0, 64 * kMiB, 21), 32u);
}

TEST(SegmentCountTest, MatchesTheIssueFormula) {
  // (off mod 2^shift + len + 2^shift - 1) >> shift, written out.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const unsigned shift = (rng() % 2 == 0) ? 12 : 21;
    const uint64_t off = rng() % (uint64_t{1} << 40);
    const uint64_t len = 1 + rng() % (64 * kMiB);
    const uint64_t page = uint64_t{1} << shift;
    EXPECT_EQ(SegmentCount(off, len, shift),
              (off % page + len + page - 1) / page);
    // And the same as the number of pages touched.
    EXPECT_EQ(SegmentCount(off, len, shift),
              (off + len - 1) / page - off / page + 1);
  }
}

// ---------------------------------------------------------------------------
// Create

TEST(SplitterCreateTest, RejectsFixedSizeNotAMultipleOfTheBlockSize) {
  DeviceSplitLimits limits;
  limits.logical_block_size = 4096;
  absl::StatusOr<Splitter> s = Splitter::Create(Fixed(1536), limits, 12);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "split \"fixed:1536\" : size 1536 is not a multiple of the "
            "logical block size 4096");
}

TEST(SplitterCreateTest, RejectsFixedSizeZero) {
  absl::StatusOr<Splitter> s =
      Splitter::Create(Fixed(0), DeviceSplitLimits{}, 12);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith("split \"fixed:0\""));
}

TEST(SplitterCreateTest, AcceptsFixedMultiplesOfTheBlockSize) {
  DeviceSplitLimits limits;
  limits.logical_block_size = 4096;
  EXPECT_TRUE(Splitter::Create(Fixed(4096), limits, 12).ok());
  EXPECT_TRUE(Splitter::Create(Fixed(128 * kKiB), limits, 21).ok());
  limits.logical_block_size = 512;
  EXPECT_TRUE(Splitter::Create(Fixed(1536), limits, 12).ok());
}

TEST(SplitterCreateTest, RejectsBadPageShiftAndBlockSize) {
  DeviceSplitLimits limits;
  for (unsigned shift : {0u, 9u, 11u, 31u, 64u}) {
    absl::StatusOr<Splitter> s = Splitter::Create(None(), limits, shift);
    ASSERT_FALSE(s.ok()) << shift;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), StartsWith("page_shift"));
  }
  for (uint32_t lbs : {0u, 256u, 1000u, 1536u}) {
    limits.logical_block_size = lbs;
    absl::StatusOr<Splitter> s = Splitter::Create(Limits(), limits, 12);
    ASSERT_FALSE(s.ok()) << lbs;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()),
                StartsWith(absl::StrCat("limits.logical_block_size ", lbs)));
  }
}

TEST(SplitterCreateTest, RejectsLimitsThePlanCannotHonour) {
  DeviceSplitLimits limits;
  limits.logical_block_size = 4096;
  limits.chunk_bytes = 4096 + 512;
  absl::StatusOr<Splitter> s = Splitter::Create(Limits(), limits, 12);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith("limits.chunk_bytes 4608"));
  // The same limits are fine for strategies that ignore them.
  EXPECT_TRUE(Splitter::Create(None(), limits, 12).ok());

  limits.chunk_bytes = 0;
  for (uint64_t virt : {uint64_t{4096}, uint64_t{8191}, uint64_t{0x3000}}) {
    limits.virt_boundary_mask = virt;
    s = Splitter::Create(Limits(), limits, 12);
    ASSERT_FALSE(s.ok()) << virt;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()),
                StartsWith("limits.virt_boundary_mask"));
  }
  limits.virt_boundary_mask = 8191;
  EXPECT_TRUE(Splitter::Create(Limits(), limits, 21).ok());
  limits.virt_boundary_mask = 4095;
  EXPECT_TRUE(Splitter::Create(Limits(), limits, 12).ok());
}

TEST(SplitterCreateTest, KeepsTheStrategy) {
  EXPECT_EQ(MustCreate(Fixed(8192), DeviceSplitLimits{}, 12).strategy(),
            Fixed(8192));
  EXPECT_EQ(MustCreate(Limits(), DeviceSplitLimits{}, 21).strategy(), Limits());
  EXPECT_EQ(Splitter().strategy(), None());
}

// ---------------------------------------------------------------------------
// NextPieceLength, by hand

TEST(SplitterTest, NoneIsOnePiece) {
  const Splitter s = MustCreate(None(), DeviceSplitLimits{}, 12);
  EXPECT_EQ(s.NextPieceLength(0, 0, 4 * kMiB), 4 * kMiB);
  EXPECT_EQ(s.NextPieceLength(12345, 777, 100), 100u);
  EXPECT_EQ(Splitter().NextPieceLength(0, 0, 1 * kMiB), 1 * kMiB);
}

TEST(SplitterTest, FixedCutsEvenPieces) {
  const Splitter s = MustCreate(Fixed(128 * kKiB), DeviceSplitLimits{}, 12);
  EXPECT_EQ(s.NextPieceLength(0, 0, kMiB), 128 * kKiB);
  EXPECT_EQ(s.NextPieceLength(4096, 512, 64 * kKiB), 64 * kKiB);
  EXPECT_THAT(Cut(s, 0, 0, 300 * kKiB),
              ::testing::ElementsAre(128 * kKiB, 128 * kKiB, 44 * kKiB));
}

TEST(SplitterTest, LimitsByMaxIo) {
  DeviceSplitLimits limits;
  limits.max_io_bytes = 128 * kKiB;
  const Splitter s = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(Cut(s, 0, 0, kMiB), std::vector<uint32_t>(8, 128 * kKiB));
  // max_io_bytes that is not a multiple of the block rounds down.
  limits.max_io_bytes = 128 * kKiB + 1000;
  limits.logical_block_size = 4096;
  EXPECT_EQ(MustCreate(Limits(), limits, 12).NextPieceLength(0, 0, kMiB),
            128 * kKiB);
}

TEST(SplitterTest, LimitsBySegmentsOnFourKiBPages) {
  DeviceSplitLimits limits;
  limits.max_segments = 4;
  const Splitter s = MustCreate(Limits(), limits, 12);
  // Page aligned: 4 whole pages.
  EXPECT_EQ(s.NextPieceLength(0, 0, kMiB), 16 * kKiB);
  // 512 bytes into a page: the 4th page is only partly usable.
  EXPECT_EQ(s.NextPieceLength(0, 512, kMiB), 16 * kKiB - 512);
  EXPECT_EQ(s.NextPieceLength(0, 4096 - 512, kMiB), 12 * kKiB + 512);
  // The rest of the I/O restarts page aligned.
  EXPECT_THAT(
      Cut(s, 0, 512, 40 * kKiB),
      ::testing::ElementsAre(16 * kKiB - 512, 16 * kKiB, 8 * kKiB + 512));
}

TEST(SplitterTest, LimitsBySegmentSizeOnHugePages) {
  DeviceSplitLimits limits;
  limits.max_segments = 2;
  limits.max_segment_size = 64 * kKiB;
  const Splitter s = MustCreate(Limits(), limits, 21);
  EXPECT_EQ(s.NextPieceLength(0, 0, 4 * kMiB), 128 * kKiB);
  EXPECT_EQ(s.NextPieceLength(0, kMiB + 4096, 4 * kMiB), 124 * kKiB);
  // A max_segment_size that is not a power of two counts in the power of two
  // below it.
  limits.max_segment_size = 64 * kKiB - 1;
  EXPECT_EQ(MustCreate(Limits(), limits, 21).NextPieceLength(0, 0, 4 * kMiB),
            64 * kKiB);
  // Without max_segment_size a huge page is one segment.
  limits.max_segment_size = 0;
  EXPECT_EQ(MustCreate(Limits(), limits, 21).NextPieceLength(0, 0, 8 * kMiB),
            4 * kMiB);
  EXPECT_EQ(MustCreate(Limits(), limits, 21).NextPieceLength(0, 4096, 8 * kMiB),
            4 * kMiB - 4096);
}

TEST(SplitterTest, LimitsByChunk) {
  DeviceSplitLimits limits;
  limits.chunk_bytes = 128 * kKiB;
  const Splitter s = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(s.NextPieceLength(120 * kKiB, 0, kMiB), 8 * kKiB);
  EXPECT_EQ(s.NextPieceLength(128 * kKiB, 0, kMiB), 128 * kKiB);
  EXPECT_EQ(s.NextPieceLength(128 * kKiB, 0, 4096), 4096u);
  // A chunk size that is not a power of two.
  limits.chunk_bytes = 384 * kKiB;
  const Splitter t = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(t.NextPieceLength(380 * kKiB, 0, kMiB), 4 * kKiB);
  EXPECT_EQ(t.NextPieceLength(384 * kKiB + 512, 0, kMiB), 384 * kKiB - 512);
}

TEST(SplitterTest, TheTightestLimitWins) {
  DeviceSplitLimits limits;
  limits.max_io_bytes = 256 * kKiB;
  limits.chunk_bytes = 512 * kKiB;
  limits.max_segments = 33;
  limits.virt_boundary_mask = 4095;
  const Splitter s = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(s.NextPieceLength(0, 0, kMiB), 132 * kKiB);          // segments
  EXPECT_EQ(s.NextPieceLength(500 * kKiB, 0, kMiB), 12 * kKiB);  // chunk
  limits.max_segments = 128;
  EXPECT_EQ(MustCreate(Limits(), limits, 12).NextPieceLength(0, 0, kMiB),
            256 * kKiB);  // max_io
  EXPECT_EQ(MustCreate(Limits(), limits, 12).NextPieceLength(0, 0, 8192),
            8192u);  // remaining
}

TEST(SplitterTest, AtLeastOneBlockAndSubBlockTails) {
  DeviceSplitLimits limits;
  limits.logical_block_size = 4096;
  limits.max_io_bytes = 1024;  // below a block: one block is the least
  const Splitter s = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(s.NextPieceLength(0, 0, kMiB), 4096u);
  EXPECT_EQ(s.NextPieceLength(0, 0, 100), 100u);
  // A length that is not a multiple of the block: whole blocks, then the tail.
  limits.max_io_bytes = 0;
  EXPECT_THAT(Cut(MustCreate(Limits(), limits, 12), 0, 0, 4096 * 3 + 100),
              ::testing::ElementsAre(4096 * 3, 100));
}

// ---------------------------------------------------------------------------
// MaxPieces

TEST(SplitterMaxPiecesTest, NoneAndFixed) {
  EXPECT_EQ(MustCreate(None(), DeviceSplitLimits{}, 12).MaxPieces(kMiB, 512),
            1u);
  EXPECT_EQ(MustCreate(None(), DeviceSplitLimits{}, 12).MaxPieces(0, 512), 0u);
  const Splitter s = MustCreate(Fixed(128 * kKiB), DeviceSplitLimits{}, 12);
  EXPECT_EQ(s.MaxPieces(kMiB, 512), 8u);
  EXPECT_EQ(s.MaxPieces(kMiB + 512, 512), 9u);
  EXPECT_EQ(s.MaxPieces(4096, 512), 1u);
}

TEST(SplitterMaxPiecesTest, ExactForOneBindingLimit) {
  DeviceSplitLimits limits;
  limits.max_io_bytes = 128 * kKiB;
  EXPECT_EQ(MustCreate(Limits(), limits, 12).MaxPieces(kMiB, 512), 8u);
  limits.max_io_bytes = 0;
  limits.chunk_bytes = 128 * kKiB;
  const Splitter chunked = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(chunked.MaxPieces(kMiB, 128 * kKiB), 8u);
  EXPECT_EQ(chunked.MaxPieces(kMiB, 4096), 9u);
  EXPECT_EQ(Cut(chunked, 4096, 0, kMiB).size(), 9u);
  // max_io and chunk together, both 128 KiB.
  limits.max_io_bytes = 128 * kKiB;
  const Splitter both = MustCreate(Limits(), limits, 12);
  EXPECT_EQ(both.MaxPieces(kMiB, kMiB), 8u);
  EXPECT_EQ(both.MaxPieces(kMiB, 4096), 9u);
  EXPECT_EQ(Cut(both, 4096, 0, kMiB).size(), 9u);
}

TEST(SplitterMaxPiecesTest, SegmentsAndTails) {
  DeviceSplitLimits limits;
  limits.max_segments = 32;  // 128 KiB windows of 4 KiB pages
  const Splitter s = MustCreate(Limits(), limits, 12);
  // Unaligned buffers lose up to a page minus a block per piece.
  EXPECT_EQ(s.MaxPieces(kMiB, 512), 9u);
  EXPECT_EQ(Cut(s, 0, 512, kMiB).size(), 9u);
  EXPECT_EQ(Cut(s, 0, 0, kMiB).size(), 8u);
  EXPECT_EQ(s.MaxPieces(100, 512), 1u);
  EXPECT_EQ(s.MaxPieces(512 + 100, 512), 2u);
}

// ---------------------------------------------------------------------------
// Properties over random cases

class CaseGenerator {
 public:
  explicit CaseGenerator(uint64_t seed) : rng_(seed) {}

  uint64_t Uniform(uint64_t lo, uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  // Spread evenly over the powers of two between lo and hi.
  uint64_t LogUniform(uint64_t lo, uint64_t hi) {
    const int lo_bits = 63 - __builtin_clzll(lo);
    const int hi_bits = 63 - __builtin_clzll(hi);
    const int bits = static_cast<int>(Uniform(lo_bits, hi_bits));
    const uint64_t a = std::max(lo, uint64_t{1} << bits);
    const uint64_t b = std::min(hi, (uint64_t{2} << bits) - 1);
    return Uniform(a, b);
  }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return values.begin()[Uniform(0, values.size() - 1)];
  }

  unsigned PageShift() { return Chance(0.5) ? 12 : 21; }

  // Limits as a Linux kernel reports them: max_sectors_kb >= 4,
  // max_segment_size >= 4 KiB, chunk a multiple of the block, a virt
  // boundary of 4 KiB or less. One block always fits them (for the block
  // sizes below, which are at most a page).
  DeviceSplitLimits RealisticLimits() {
    DeviceSplitLimits l;
    l.logical_block_size = Pick<uint32_t>({512, 1024, 2048, 4096});
    if (!Chance(0.2)) l.max_io_bytes = LogUniform(4, 16384) * 1024;
    if (!Chance(0.2)) {
      l.max_segments = static_cast<uint32_t>(LogUniform(1, 4096));
    }
    if (!Chance(0.3)) {
      l.max_segment_size =
          Chance(0.5) ? uint32_t{1} << Uniform(12, 31)
                      : static_cast<uint32_t>(LogUniform(4096, 0xffffffff));
    }
    if (Chance(0.4)) {
      l.chunk_bytes =
          l.logical_block_size * (Chance(0.5) ? uint64_t{1} << Uniform(0, 16)
                                              : LogUniform(1, 1 << 16));
    }
    if (Chance(0.5)) l.virt_boundary_mask = Pick<uint64_t>({511, 4095});
    return l;
  }

  // Anything Create accepts: limits below a block, tiny segments.
  DeviceSplitLimits WildLimits() {
    DeviceSplitLimits l;
    l.logical_block_size = Pick<uint32_t>({512, 4096, 8192, 65536});
    if (!Chance(0.2)) l.max_io_bytes = LogUniform(1, 64 * kMiB);
    if (!Chance(0.2)) l.max_segments = static_cast<uint32_t>(LogUniform(1, 64));
    if (!Chance(0.3)) {
      l.max_segment_size = static_cast<uint32_t>(LogUniform(1, 0xffffffff));
    }
    if (Chance(0.4)) {
      l.chunk_bytes = l.logical_block_size * LogUniform(1, 1 << 12);
    }
    return l;
  }

  SplitStrategy Strategy(uint32_t logical_block_size) {
    const uint64_t roll = Uniform(0, 19);
    if (roll == 0) return None();
    if (roll == 1) return Fixed(logical_block_size * LogUniform(1, 4096));
    return Limits();
  }

  // A multiple of `align` below 2^bits, often right next to a multiple of
  // `boundary` (a chunk or a page) where the limits bind.
  uint64_t Offset(uint64_t align, int bits, uint64_t boundary) {
    if (boundary != 0 && Chance(0.3)) {
      const uint64_t k = Uniform(1, (uint64_t{1} << bits) / boundary + 1);
      // A few blocks either way, rounded down to `align`.
      const uint64_t near = k * boundary / align * align;
      const uint64_t delta = Uniform(0, 4) * align;
      if (Chance(0.5)) return near + delta;
      return near >= delta ? near - delta : 0;
    }
    return Uniform(0, ((uint64_t{1} << bits) - 1) / align) * align;
  }

  uint32_t Length(uint32_t block) {
    switch (Uniform(0, 5)) {
      case 0:
        return static_cast<uint32_t>(Uniform(1, 8 * kMiB));
      case 1:
      case 2:
        return static_cast<uint32_t>(Uniform(1, 8 * kMiB / block) * block);
      case 3:
        return static_cast<uint32_t>(LogUniform(1, 64 * kKiB));
      case 4:
        return static_cast<uint32_t>(LogUniform(1, 4 * kMiB / block) * block);
      default:
        return static_cast<uint32_t>(
            Pick<uint64_t>({4096, 64 * kKiB, 128 * kKiB, kMiB, 4 * kMiB}));
    }
  }

 private:
  std::mt19937_64 rng_;
};

TEST(SplitterPropertyTest, ArithmeticMatchesTheReferenceWalkExactly) {
  constexpr int kCases = 1'000'000;
  CaseGenerator gen(20220623);
  int failures = 0;
  int limits_cases = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const unsigned page_shift = gen.PageShift();
    const bool realistic = !gen.Chance(0.2);
    const DeviceSplitLimits limits =
        realistic ? gen.RealisticLimits() : gen.WildLimits();
    const SplitStrategy strategy = gen.Strategy(limits.logical_block_size);
    limits_cases += strategy.kind == SplitStrategy::Kind::kLimits;
    // Aligned to the logical block, as the engine issues them; a few wild
    // cases at any byte (the two must agree there too).
    const uint64_t align =
        realistic || gen.Chance(0.5) ? limits.logical_block_size : 1;
    const uint64_t dev_off = gen.Offset(align, 40, limits.chunk_bytes);
    const uint64_t buf_off = gen.Offset(
        align, 30,
        gen.Chance(0.5) ? uint64_t{1} << page_shift : limits.max_segment_size);
    const uint32_t remaining = gen.Length(limits.logical_block_size);

    absl::StatusOr<Splitter> splitter =
        Splitter::Create(strategy, limits, page_shift);
    ASSERT_TRUE(splitter.ok()) << splitter.status();
    const uint32_t fast =
        splitter->NextPieceLength(dev_off, buf_off, remaining);
    const uint32_t slow = internal::NextPieceLengthReference(
        strategy, limits, page_shift, dev_off, buf_off, remaining);
    if (fast != slow || fast == 0 || fast > remaining) {
      ++failures;
      ADD_FAILURE() << "case " << i << ": arithmetic " << fast << " reference "
                    << slow << " for "
                    << Describe(strategy, limits, page_shift, dev_off, buf_off,
                                remaining);
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(limits_cases, kCases * 8 / 10);
}

// Checks one piece against the limits with the kernel's own view of
// segments: every page the piece touches is its own bio_vec, which the
// kernel cuts at max_segment_size. Returns what it breaks, or "".
std::string PieceBreaks(const DeviceSplitLimits& limits, unsigned page_shift,
                        uint64_t dev_off, uint64_t buf_off, uint64_t len) {
  if (limits.max_io_bytes != 0 && len > limits.max_io_bytes) {
    return absl::StrCat("length ", len, " > max_io_bytes");
  }
  if (limits.chunk_bytes != 0 && dev_off / limits.chunk_bytes !=
                                     (dev_off + len - 1) / limits.chunk_bytes) {
    return "crosses a chunk boundary";
  }
  const uint64_t page = uint64_t{1} << page_shift;
  const uint64_t end = buf_off + len;
  uint64_t segments = 0;
  for (uint64_t p = buf_off; p < end;) {
    const uint64_t page_end = (p / page + 1) * page;
    const uint64_t bvec_end = std::min(end, page_end);
    const uint64_t bytes = bvec_end - p;
    segments +=
        limits.max_segment_size == 0
            ? 1
            : (bytes + limits.max_segment_size - 1) / limits.max_segment_size;
    // virt boundary: inner bio_vec edges must be on the boundary.
    if (p != buf_off && (p & limits.virt_boundary_mask) != 0) {
      return "a bio_vec starts off the virt boundary";
    }
    if (bvec_end != end && (bvec_end & limits.virt_boundary_mask) != 0) {
      return "a bio_vec ends off the virt boundary";
    }
    p = bvec_end;
  }
  if (limits.max_segments != 0 && segments > limits.max_segments) {
    return absl::StrCat(segments, " segments > max_segments");
  }
  return "";
}

// The blkperf model's segment count (whole units touched), to check that a
// piece one block longer would have broken a limit.
bool FitsTheModel(const DeviceSplitLimits& limits, unsigned page_shift,
                  uint64_t dev_off, uint64_t buf_off, uint64_t len) {
  if (limits.max_io_bytes != 0 && len > limits.max_io_bytes) return false;
  if (limits.chunk_bytes != 0 && dev_off / limits.chunk_bytes !=
                                     (dev_off + len - 1) / limits.chunk_bytes) {
    return false;
  }
  uint64_t unit = uint64_t{1} << page_shift;
  while (limits.max_segment_size != 0 && unit > limits.max_segment_size) {
    unit /= 2;
  }
  const uint64_t units = (buf_off + len - 1) / unit - buf_off / unit + 1;
  return limits.max_segments == 0 || units <= limits.max_segments;
}

TEST(SplitterPropertyTest, CuttingWholeIosKeepsEveryLimit) {
  constexpr int kIos = 100'000;
  CaseGenerator gen(4);
  int failures = 0;
  uint64_t total_pieces = 0;
  for (int i = 0; i < kIos && failures < 10; ++i) {
    const unsigned page_shift = gen.PageShift();
    const DeviceSplitLimits limits = gen.RealisticLimits();
    const SplitStrategy strategy = gen.Strategy(limits.logical_block_size);
    const uint32_t block = limits.logical_block_size;
    const uint32_t alignment = static_cast<uint32_t>(
        gen.Pick<uint64_t>({block, 4096, 64 * kKiB, kMiB, 2 * kMiB}));
    const uint64_t dev_off = gen.Offset(alignment, 40, 0);
    const uint64_t buf_off = gen.Offset(alignment, 30, 0);
    uint32_t len =
        static_cast<uint32_t>(gen.Uniform(1, 4 * kMiB / block) * block);
    if (gen.Chance(0.05))
      len += static_cast<uint32_t>(gen.Uniform(1, block - 1));
    const std::string what =
        Describe(strategy, limits, page_shift, dev_off, buf_off, len);

    absl::StatusOr<Splitter> splitter =
        Splitter::Create(strategy, limits, page_shift);
    ASSERT_TRUE(splitter.ok()) << splitter.status();
    const std::vector<uint32_t> pieces = Cut(*splitter, dev_off, buf_off, len);
    total_pieces += pieces.size();

    uint64_t done = 0;
    for (const uint32_t piece : pieces) {
      const uint64_t left = len - done;
      if (piece % block != 0 && piece != left) {
        ++failures;
        ADD_FAILURE() << "piece " << piece << " at " << done
                      << " is not whole blocks: " << what;
      }
      if (strategy.kind == SplitStrategy::Kind::kLimits) {
        const std::string broken = PieceBreaks(
            limits, page_shift, dev_off + done, buf_off + done, piece);
        if (!broken.empty()) {
          ++failures;
          ADD_FAILURE() << "piece " << piece << " at " << done << " " << broken
                        << ": " << what;
        }
        if (piece + uint64_t{block} <= left &&
            FitsTheModel(limits, page_shift, dev_off + done, buf_off + done,
                         piece + uint64_t{block})) {
          ++failures;
          ADD_FAILURE() << "piece " << piece << " at " << done
                        << " could have been a block longer: " << what;
        }
      }
      done += piece;
    }
    if (done != len) {
      ++failures;
      ADD_FAILURE() << "pieces sum to " << done << ": " << what;
    }
    const uint32_t bound = splitter->MaxPieces(len, alignment);
    if (pieces.size() > bound || bound > splitter->MaxPieces(len, block)) {
      ++failures;
      ADD_FAILURE() << pieces.size() << " pieces, MaxPieces says " << bound
                    << " (" << splitter->MaxPieces(len, block)
                    << " at block alignment): " << what;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(total_pieces, uint64_t{kIos});
}

}  // namespace
}  // namespace blkperf

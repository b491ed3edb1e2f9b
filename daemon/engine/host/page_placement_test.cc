#include "daemon/engine/host/page_placement.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

constexpr uint64_t kPresent = uint64_t{1} << 63;

std::vector<uint64_t> Entries(std::initializer_list<int64_t> frames) {
  std::vector<uint64_t> entries;
  for (const int64_t frame : frames) {
    // -1: a page not faulted in (no frame; the soft-dirty bit set, which
    // is not the present bit).
    entries.push_back(frame < 0 ? uint64_t{1} << 55
                                : kPresent | static_cast<uint64_t>(frame));
  }
  return entries;
}

TEST(CountPagemapEntriesTest, CountsNeighboursEitherWayAndSkipsHoles) {
  // 10-11-12 up, a hole, 20-19 down, then a jump to 5.
  const std::vector<uint64_t> entries = Entries({10, 11, 12, -1, 20, 19, 5});
  PagePlacement placement;
  int64_t previous = -1;
  CountPagemapEntries(entries, &previous, &placement);
  EXPECT_EQ(placement.pages_present, 6u);
  EXPECT_EQ(placement.pairs, 4u);  // 10-11, 11-12, 20-19, 19-5
  EXPECT_EQ(placement.adjacent_pairs, 3u);
  EXPECT_DOUBLE_EQ(placement.AdjacentShare(), 0.75);
}

TEST(CountPagemapEntriesTest, ARangeReadInPiecesCountsAsOne) {
  const std::vector<uint64_t> entries = Entries({7, 8, 9, 30, 31});
  PagePlacement whole, pieces;
  int64_t previous = -1;
  CountPagemapEntries(entries, &previous, &whole);
  previous = -1;
  const absl::Span<const uint64_t> all(entries);
  CountPagemapEntries(all.subspan(0, 2), &previous, &pieces);
  CountPagemapEntries(all.subspan(2), &previous, &pieces);
  EXPECT_EQ(pieces.pages_present, whole.pages_present);
  EXPECT_EQ(pieces.pairs, whole.pairs);
  EXPECT_EQ(pieces.adjacent_pairs, whole.adjacent_pairs);
  EXPECT_EQ(whole.adjacent_pairs, 3u);  // 7-8, 8-9, 30-31
}

TEST(PagePlacementTest, NoPairsIsShareZeroAndMergeAdds) {
  PagePlacement a{.pages_present = 1};
  EXPECT_EQ(a.AdjacentShare(), 0.0);
  a.Merge({.pages_present = 3, .pairs = 2, .adjacent_pairs = 1});
  EXPECT_EQ(a.pages_present, 4u);
  EXPECT_DOUBLE_EQ(a.AdjacentShare(), 0.5);
}

class MappedRange : public ::testing::Test {
 protected:
  static constexpr size_t kBytes = 4 << 20;
  void SetUp() override {
    base_ = static_cast<char*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(base_, MAP_FAILED);
    madvise(base_, kBytes, MADV_NOHUGEPAGE);  // 4 KiB pages
  }
  void TearDown() override { munmap(base_, kBytes); }
  char* base_ = nullptr;
};

TEST_F(MappedRange, CountsThePagesFaultedIn) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (page frames: CAP_SYS_ADMIN)";
  absl::StatusOr<PagePlacement> none = ReadPagePlacement(base_, kBytes);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->pages_present, 0u);
  for (size_t i = 0; i < kBytes / 2; i += 4096) base_[i] = 1;  // first half
  absl::StatusOr<PagePlacement> half = ReadPagePlacement(base_, kBytes);
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(half->pages_present, kBytes / 2 / 4096);
  EXPECT_EQ(half->pairs, kBytes / 2 / 4096 - 1);
  EXPECT_LE(half->adjacent_pairs, half->pairs);
}

TEST_F(MappedRange, HidesNothingFromRootAndSaysWhyToOthers) {
  base_[0] = 1;
  base_[4096] = 1;
  absl::StatusOr<PagePlacement> placement = ReadPagePlacement(base_, 8192);
  if (geteuid() == 0) {
    ASSERT_TRUE(placement.ok()) << placement.status();
    EXPECT_EQ(placement->pages_present, 2u);
  } else {
    EXPECT_EQ(placement.status().code(),
              absl::StatusCode::kFailedPrecondition);
  }
}

}  // namespace
}  // namespace blkperf::internal

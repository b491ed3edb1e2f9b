#include "daemon/engine/ring/completion_tag.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

struct alignas(64) Object {
  int value = 0;
};

TEST(CompletionTagTest, EveryFieldRoundTrips) {
  auto objects = std::make_unique<Object[]>(4);
  for (int i = 0; i < 4; ++i) {
    Object* obj = &objects[i];
    ASSERT_TRUE(CompletionTag<Object>::Taggable(obj));
    for (uint32_t slot : {0u, 1u, 0x1234u, 0xffffu}) {
      for (int flags = 0; flags < 4; ++flags) {
        const bool whole = flags & 1, write = flags & 2;
        const CompletionTag<Object> tag(CompletionTag<Object>::Pack(
            obj, static_cast<uint16_t>(slot), whole, write));
        EXPECT_EQ(tag.request(), obj);
        EXPECT_EQ(tag.turn_slot(), slot);
        EXPECT_EQ(tag.whole(), whole);
        EXPECT_EQ(tag.write(), write);
      }
    }
  }
}

TEST(CompletionTagTest, OnlyAlignedAddressesBelow2To48AreTaggable) {
  const auto at = [](uint64_t address) {
    return reinterpret_cast<const Object*>(static_cast<uintptr_t>(address));
  };
  EXPECT_TRUE(CompletionTag<Object>::Taggable(at(0x7fffffffffc0)));
  EXPECT_TRUE(CompletionTag<Object>::Taggable(at(0xffffffffffc0)));
  EXPECT_FALSE(CompletionTag<Object>::Taggable(at(0x1000000000000)));
  EXPECT_FALSE(CompletionTag<Object>::Taggable(at(0x7fffffffffe0)));
  EXPECT_FALSE(CompletionTag<Object>::Taggable(at(0x1001)));
}

// A CQE as the kernel writes it: user_data, then res.
struct Cqe {
  uint64_t user_data;
  int32_t res;
  uint32_t flags;
};

class TakeWholeRunTest : public ::testing::Test {
 protected:
  static constexpr int32_t kWhole = 4096;
  Cqe At(int object, uint16_t slot, bool whole = true, bool write = false,
         int32_t res = kWhole) {
    return {CompletionTag<Object>::Pack(&objects_[object], slot, whole, write),
            res, 0};
  }
  std::unique_ptr<Object[]> objects_ = std::make_unique<Object[]>(8);
  Object* out_[8] = {};
};

TEST_F(TakeWholeRunTest, TakesEveryQualifyingCqeUpToTheLimit) {
  const Cqe cqes[] = {At(3, 7), At(1, 7), At(4, 7), At(0, 7)};
  const WholeRun run = TakeWholeRun<Object, false>(cqes, 3, kWhole, out_);
  EXPECT_EQ(run.ios, 3u);
  EXPECT_EQ(run.writes, 0u);
  EXPECT_EQ(out_[0], &objects_[3]);
  EXPECT_EQ(out_[1], &objects_[1]);
  EXPECT_EQ(out_[2], &objects_[4]);
  EXPECT_EQ(out_[3], nullptr);  // past the limit: not written
}

TEST_F(TakeWholeRunTest, EndsAtTheFirstCqeThatDiffers) {
  const std::pair<const char*, Cqe> breakers[] = {
      {"a piece", At(2, 7, /*whole=*/false)},
      {"a short transfer", At(2, 7, true, false, kWhole - 512)},
      {"an error", At(2, 7, true, false, -5)},
      {"another turn", At(2, 8)},
      {"the other direction", At(2, 7, true, /*write=*/true)},
  };
  for (const auto& [what, breaker] : breakers) {
    const Cqe cqes[] = {At(0, 7), At(1, 7), breaker, At(3, 7)};
    EXPECT_EQ((TakeWholeRun<Object, false>(cqes, 4, kWhole, out_).ios), 2u)
        << what;
  }
}

TEST_F(TakeWholeRunTest, WritesAreTheKeyOrCounted) {
  const Cqe writes[] = {At(0, 1, true, true), At(1, 1, true, true)};
  WholeRun run = TakeWholeRun<Object, false>(writes, 2, kWhole, out_);
  EXPECT_EQ(run.ios, 2u);
  EXPECT_EQ(run.writes, 2u);
  // Mixed directions: one run, its writes counted.
  const Cqe mixed[] = {At(0, 1), At(1, 1, true, true), At(2, 1),
                       At(3, 1, true, true), At(4, 1, true, true)};
  run = TakeWholeRun<Object, true>(mixed, 5, kWhole, out_);
  EXPECT_EQ(run.ios, 5u);
  EXPECT_EQ(run.writes, 3u);
  EXPECT_EQ(out_[3], &objects_[3]);
  // Without kMixedDirections the same CQEs are runs of one direction each.
  EXPECT_EQ((TakeWholeRun<Object, false>(mixed, 5, kWhole, out_).ios), 1u);
}

}  // namespace
}  // namespace blkperf::internal

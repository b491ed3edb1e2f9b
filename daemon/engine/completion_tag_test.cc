#include "daemon/engine/completion_tag.h"

#include <cstdint>
#include <memory>

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

}  // namespace
}  // namespace blkperf::internal

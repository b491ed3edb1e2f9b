#include "daemon/engine/ring/io_buffers.h"

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

using ::testing::HasSubstr;

constexpr char kNrHugepages[] = "/proc/sys/vm/nr_hugepages";

uint64_t ReadNumber(const char* path) {
  std::ifstream in(path);
  uint64_t value = 0;
  in >> value;
  return value;
}

bool WriteNumber(const char* path, uint64_t value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  return static_cast<bool>(out);
}

uint64_t MeminfoValue(const std::string& wanted) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == wanted) return value;
    in.ignore(256, '\n');
  }
  return 0;
}

// Reserves `pages` more hugetlb pages for the test and restores the old
// reservation afterwards.
class HugePageReservation {
 public:
  explicit HugePageReservation(uint64_t pages)
      : old_(ReadNumber(kNrHugepages)) {
    ok_ = WriteNumber(kNrHugepages, old_ + pages) &&
          MeminfoValue("HugePages_Free:") >= pages;
  }
  ~HugePageReservation() { WriteNumber(kNrHugepages, old_); }
  bool ok() const { return ok_; }

 private:
  uint64_t old_;
  bool ok_ = false;
};

IoBufferOptions Options(uint32_t slots, uint32_t slot_bytes,
                        BufferLayout layout, HugePageMode huge) {
  return {.slots = slots, .slot_bytes = slot_bytes, .layout = layout,
          .huge_pages = huge, .seed = 7};
}

TEST(IoBuffersTest, PerSlotRegistersOneBufferPerSlot) {
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(8, 4096, BufferLayout::kPerSlot, HugePageMode::kOff), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->registration().size(), 8u);
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(b->registration()[i].iov_base, b->slot(i));
    EXPECT_EQ(b->registration()[i].iov_len, 4096u);
    EXPECT_EQ(i & b->buf_index_mask(), i);
  }
  EXPECT_EQ(b->slot(1), b->base() + 4096);
  EXPECT_FALSE(b->huge_pages());
  EXPECT_EQ(b->page_shift(), 12u);
  EXPECT_TRUE(notes.empty());
}

TEST(IoBuffersTest, OneRegionRegistersEverySlotAsBufferZero) {
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(8, 16384, BufferLayout::kOneRegion, HugePageMode::kOff), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->registration().size(), 1u);
  EXPECT_EQ(b->registration()[0].iov_base, b->base());
  EXPECT_EQ(b->registration()[0].iov_len, 8u * 16384);
  EXPECT_EQ(7 & b->buf_index_mask(), 0);
  EXPECT_EQ(b->layout(), BufferLayout::kOneRegion);
}

TEST(IoBuffersTest, AutoIsOneRegionUpToTheKernelsLimit) {
  // Mapped, not touched: the test holds no memory for these sizes.
  for (const uint32_t slots : {8u, 2u}) {
    const uint32_t slot_bytes = slots == 8 ? 16384 : 512u << 20;  // 1 GiB
    std::vector<std::string> notes;
    absl::StatusOr<IoBuffers> b = IoBuffers::Create(
        Options(slots, slot_bytes, BufferLayout::kAuto, HugePageMode::kOff),
        &notes);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->layout(), BufferLayout::kOneRegion) << slots;
    ASSERT_EQ(b->registration().size(), 1u);
    EXPECT_EQ(b->registration()[0].iov_len, size_t{slots} * slot_bytes);
    EXPECT_EQ(1 & b->buf_index_mask(), 0);
    EXPECT_TRUE(notes.empty());
  }
}

TEST(IoBuffersTest, AutoPastTheKernelsLimitIsPerSlotAndSaysWhy) {
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(3, 512u << 20, BufferLayout::kAuto, HugePageMode::kOff), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->layout(), BufferLayout::kPerSlot);
  EXPECT_EQ(b->registration().size(), 3u);
  EXPECT_EQ(2 & b->buf_index_mask(), 2);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("buffer_layout: auto chose per_slot"));
  EXPECT_THAT(notes[0], HasSubstr("1610612736 bytes"));
}

TEST(IoBuffersTest, FillIsNonZero) {
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(2, 4096, BufferLayout::kPerSlot, HugePageMode::kOff), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  b->Fill();
  size_t zero = 0;
  for (size_t i = 0; i < 8192; ++i) zero += b->base()[i] == 0;
  EXPECT_LT(zero, 8192u / 64);  // random bytes: ~1/256 are zero
}

TEST(IoBuffersTest, HugePagesOnUsesHugetlbPages) {
  HugePageReservation reservation(2);
  ASSERT_TRUE(reservation.ok()) << "could not reserve 2 huge pages via "
                                << kNrHugepages;
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(4, 1 << 20, BufferLayout::kOneRegion, HugePageMode::kOn), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->huge_pages());
  EXPECT_EQ(b->page_shift(), kHugePageShift);
  EXPECT_EQ(b->mapped_bytes(), 2 * kHugePageBytes);
  EXPECT_TRUE(notes.empty());
}

TEST(IoBuffersTest, HugePagesOnFailsNamingTheFieldWhenNoneAreFree) {
  // More huge pages than are free (and none can be overcommitted).
  if (ReadNumber("/proc/sys/vm/nr_overcommit_hugepages") != 0) {
    GTEST_SKIP() << "nr_overcommit_hugepages is set: the kernel may "
                    "allocate surplus pages, so no request is sure to fail";
  }
  const uint64_t free_pages = MeminfoValue("HugePages_Free:");
  const uint32_t slots = static_cast<uint32_t>(free_pages + 1);
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(slots, kHugePageBytes, BufferLayout::kPerSlot, HugePageMode::kOn),
      &notes);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("huge_pages"));
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("nr_hugepages"));
}

TEST(IoBuffersTest, HugePagesAutoFallsBackAndSaysSo) {
  if (ReadNumber("/proc/sys/vm/nr_overcommit_hugepages") != 0) {
    GTEST_SKIP() << "nr_overcommit_hugepages is set: hugetlb may not fail";
  }
  const uint64_t free_pages = MeminfoValue("HugePages_Free:");
  const uint32_t slots = static_cast<uint32_t>(free_pages + 1);
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(slots, kHugePageBytes, BufferLayout::kPerSlot,
              HugePageMode::kAuto),
      &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->huge_pages());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("huge_pages: auto fell back"));
}

TEST(IoBuffersTest, HugePagesAutoUsesThemWhenReserved) {
  HugePageReservation reservation(2);
  ASSERT_TRUE(reservation.ok());
  std::vector<std::string> notes;
  absl::StatusOr<IoBuffers> b = IoBuffers::Create(
      Options(2, 1 << 20, BufferLayout::kPerSlot, HugePageMode::kAuto), &notes);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->huge_pages());
  EXPECT_TRUE(notes.empty());
}

}  // namespace
}  // namespace blkperf::internal

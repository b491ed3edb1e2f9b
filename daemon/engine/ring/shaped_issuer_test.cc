#include "daemon/engine/ring/shaped_issuer.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

GroupShape Group(Op op, uint32_t threads) {
  GroupShape g;
  g.op = op;
  g.threads = threads;
  g.read_percent = OpWrites(op, 100) ? 0 : 100;
  g.random_percent = OpIsRandom(op) ? 100 : 0;
  g.max_block_size = g.min_block_size = 4096;
  g.shaped = true;
  return g;
}

constexpr uint64_t kTargetBytes = 1 << 20;

// A Request of its own, on the heap: Request is alignas(64), which ASan's
// fake stack frames (detect_stack_use_after_return) do not keep.
Request* NewRequest() {
  static std::vector<std::unique_ptr<Request>> requests;
  requests.push_back(std::make_unique<Request>());
  return requests.back().get();
}

TEST(ShapedIssuerTest, ClosedLoopIsAlwaysDueAndIntendsEachIoAsItIsPicked) {
  absl::StatusOr<ShapedIssuer> issuer =
      ShapedIssuer::Create(Group(Op::kRead, 1), {kTargetBytes}, 0);
  ASSERT_TRUE(issuer.ok()) << issuer.status();
  issuer->Start(ShapedIssuer::ThreadRate(Group(Op::kRead, 1)), 1000);
  EXPECT_FALSE(issuer->open_loop());
  Xorshift rng;
  issuer->MarkQueueFull(5000);
  for (int64_t now = 1000; now < 1010; ++now) {
    ASSERT_TRUE(issuer->Due(now));
    Request& req = *NewRequest();
    issuer->Pick(&req, now, rng);
    EXPECT_EQ(req.kind, kReadIo);
    EXPECT_FALSE(req.is_write);
    EXPECT_EQ(req.length, 4096u);
    EXPECT_EQ(req.offset, uint64_t(now - 1000) * 4096) << "sequential";
    EXPECT_EQ(req.intended_ns, now);
    EXPECT_EQ(req.late, 0) << "a closed loop has no schedule to be late on";
  }
}

TEST(ShapedIssuerTest, OpenLoopPacesIntendedTimesAndMarksLateOnes) {
  GroupShape g = Group(Op::kRandRead, 2);
  g.rate_iops = 2000;  // 1000 per thread: one I/O per ms
  const RatePacer::Rate rate = ShapedIssuer::ThreadRate(g);
  EXPECT_DOUBLE_EQ(rate.per_second, 1000);
  absl::StatusOr<ShapedIssuer> issuer =
      ShapedIssuer::Create(g, {kTargetBytes}, 1);
  ASSERT_TRUE(issuer.ok()) << issuer.status();
  const int64_t start = 1'000'000'000;
  issuer->Start(rate, start);
  ASSERT_TRUE(issuer->open_loop());
  Xorshift rng;
  Request& req = *NewRequest();
  ASSERT_TRUE(issuer->Due(start));
  issuer->Pick(&req, start, rng);
  EXPECT_EQ(req.intended_ns, start);
  EXPECT_EQ(req.late, 0);
  // The next is intended 1 ms later, not before.
  EXPECT_EQ(issuer->next_ns(), start + 1'000'000);
  EXPECT_FALSE(issuer->Due(start + 999'999));
  EXPECT_TRUE(issuer->Due(start + 1'000'000));
  // A full queue seen after its intended time makes it late.
  issuer->MarkQueueFull(start + 1'500'000);
  issuer->Pick(&req, start + 2'000'000, rng);
  EXPECT_EQ(req.intended_ns, start + 1'000'000);
  EXPECT_EQ(req.late, 1);
  issuer->Pick(&req, start + 2'000'000, rng);
  EXPECT_EQ(req.intended_ns, start + 2'000'000);
  EXPECT_EQ(req.late, 0) << "intended after the full queue was seen";
  EXPECT_EQ(req.offset % 4096, 0u);
  EXPECT_LE(req.offset + 4096, kTargetBytes);
  // A new rate restarts the schedule at its instant.
  issuer->TakeRate(3, {.per_second = 100}, start + 5'000'000);
  EXPECT_EQ(issuer->rate_generation(), 3u);
  EXPECT_EQ(issuer->next_ns(), start + 5'000'000);
}

TEST(ShapedIssuerTest, SyncEveryNthWriteOnThatWritesTarget) {
  GroupShape g = Group(Op::kWrite, 1);
  g.sync_every = 3;
  absl::StatusOr<ShapedIssuer> issuer =
      ShapedIssuer::Create(g, {kTargetBytes, kTargetBytes}, 0);
  ASSERT_TRUE(issuer.ok()) << issuer.status();
  issuer->Start(ShapedIssuer::ThreadRate(g), 0);
  Xorshift rng;
  int writes = 0, syncs = 0;
  for (int i = 0; i < 16; ++i) {
    Request& req = *NewRequest();
    req.target = static_cast<uint16_t>(i % 2);
    issuer->Pick(&req, 0, rng);
    if (req.kind == kSyncIo) {
      ++syncs;
      EXPECT_EQ(writes, 3 * syncs) << "a sync right after every 3rd write";
      EXPECT_EQ(req.target, (i - 1) % 2) << "the target of that write";
      EXPECT_EQ(req.length, 0u);
      EXPECT_TRUE(req.is_write);
    } else {
      ASSERT_EQ(req.kind, kWriteIo);
      EXPECT_TRUE(req.is_write);
      ++writes;
    }
  }
  EXPECT_EQ(syncs, 4);  // 12 writes, 4 syncs
  EXPECT_EQ(writes, 12);
}

TEST(ShapedIssuerTest, APendingSyncIsDueBeforeTheSchedule) {
  GroupShape g = Group(Op::kWrite, 1);
  g.sync_every = 1;
  g.rate_iops = 10;  // one I/O per 100 ms
  absl::StatusOr<ShapedIssuer> issuer =
      ShapedIssuer::Create(g, {kTargetBytes}, 0);
  ASSERT_TRUE(issuer.ok()) << issuer.status();
  issuer->Start(ShapedIssuer::ThreadRate(g), 0);
  Xorshift rng;
  Request& req = *NewRequest();
  issuer->Pick(&req, 0, rng);
  ASSERT_EQ(req.kind, kWriteIo);
  EXPECT_TRUE(issuer->Due(1)) << "its sync is not paced";
  issuer->Pick(&req, 1, rng);
  EXPECT_EQ(req.kind, kSyncIo);
  EXPECT_FALSE(issuer->Due(1)) << "the next write waits for its time";
}

TEST(ShapedIssuerTest, TrimGroupsTrimAndNeverSync) {
  GroupShape g = Group(Op::kTrim, 1);
  g.sync_every = 2;  // applies to writes only
  absl::StatusOr<ShapedIssuer> issuer =
      ShapedIssuer::Create(g, {kTargetBytes}, 0);
  ASSERT_TRUE(issuer.ok()) << issuer.status();
  issuer->Start({}, 0);
  Xorshift rng;
  for (int i = 0; i < 8; ++i) {
    Request& req = *NewRequest();
    issuer->Pick(&req, 0, rng);
    EXPECT_EQ(req.kind, kTrimIo);
  }
}

TEST(ShapedIssuerTest, RefusesATargetSmallerThanABlock) {
  EXPECT_FALSE(ShapedIssuer::Create(Group(Op::kRead, 1), {1024}, 0).ok());
}

}  // namespace
}  // namespace blkperf::internal

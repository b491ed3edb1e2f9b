// SubmitterThread's Prepare and Reap against a fake ring: an io_uring whose
// SQ and CQ are plain memory of the test's (liburing's inline helpers, which
// Prepare and Reap use, read it as they read a kernel ring's), with the
// kernel's part played on demand. The thread is set up for real (a real
// ring, then swapped for the fake one), so the loop's own code runs
// unchanged: no hook, no virtual call added to it.
#include "daemon/engine/ring/submitter.h"

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <memory>
#include <set>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/engine/ring/completion_tag.h"
#include "daemon/engine/ring/io_turn.h"
#include "daemon/engine/spec/spec_validation.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "model/snapshot.h"

namespace blkperf::internal {

// Reaches the loop's private steps (a friend of SubmitterThread).
class SubmitterThreadPeer {
 public:
  static absl::Status Setup(SubmitterThread& s) { return s.Setup(); }
  static io_uring& Ring(SubmitterThread& s) { return s.ring_; }
  template <IoMode kMode, typename Cache>
  static uint32_t Prepare(SubmitterThread& s, Cache& cache, uint32_t max_ios,
                          uint16_t turn_slot) {
    return s.PrepareOutOfLine<kMode>(cache, max_ios, turn_slot,
                                     /*measuring=*/true);
  }
  template <typename Cache>
  static uint32_t Reap(SubmitterThread& s, Cache& cache, int64_t now_ns) {
    return s.ReapOutOfLine(cache, /*measuring=*/true, now_ns);
  }
  static PerCpuRequestCache<Request>& PerCpuCache(SubmitterThread& s) {
    return *s.per_cpu_cache_;
  }
  static SharedRequestCache<Request>& SharedCache(SubmitterThread& s) {
    return *s.shared_cache_;
  }
  static TurnLog& Turns(SubmitterThread& s) { return *s.turns_; }
  static const ThreadStats& Stats(const SubmitterThread& s) {
    return s.stats_;
  }
  static uint32_t Inflight(const SubmitterThread& s) { return s.inflight_; }
  // The stall check at `now`, the previous one having been at `last_ns`.
  static bool CheckStallsAt(SubmitterThread& s, int64_t last_ns, int64_t now) {
    s.next_stall_check_ns_ = s.NextStallCheck(last_ns);
    return s.CheckStalls(*s.per_cpu_cache_, now);
  }
  static uint32_t FreeBuffers(const SubmitterThread& s) {
    return s.free_buffers_.size();
  }
  static const Request* Requests(const SubmitterThread& s) {
    return s.requests_.get();
  }
};

namespace {

// An io_uring in the test's memory. Install() points a thread's ring at it;
// Prepare fills its SQEs; SubmitAndWait (the Ring concept of io_turn.h)
// consumes them as the kernel would, and Complete() posts the CQEs of the
// oldest consumed ones.
class FakeRing {
 public:
  explicit FakeRing(unsigned entries)
      : sqes_(entries), array_(entries), cqes_(2 * entries) {}

  // Replaces `*ring` (a real ring, kept) by the fake one until Uninstall().
  void Install(io_uring* ring) {
    saved_ = *ring;
    ring_ = ring;
    *ring = io_uring{};
    io_uring_sq& sq = ring->sq;
    sq.khead = &sq_head_;
    sq.ktail = &sq_tail_;
    sq.kflags = &sq_flags_;
    sq.kdropped = &dropped_;
    sq.array = array_.data();
    sq.sqes = sqes_.data();
    sq.ring_mask = static_cast<unsigned>(sqes_.size()) - 1;
    sq.ring_entries = static_cast<unsigned>(sqes_.size());
    io_uring_cq& cq = ring->cq;
    cq.khead = &cq_head_;
    cq.ktail = &cq_tail_;
    cq.kflags = &cq_flags_;
    cq.koverflow = &overflow_;
    cq.cqes = cqes_.data();
    cq.ring_mask = static_cast<unsigned>(cqes_.size()) - 1;
    cq.ring_entries = static_cast<unsigned>(cqes_.size());
    ring->ring_fd = -1;
  }
  void Uninstall() {
    if (ring_ != nullptr) *ring_ = saved_;
    ring_ = nullptr;
  }

  io_uring& uring() { return *ring_; }

  // Ring concept: takes every SQE queued since the last call.
  int SubmitAndWait(unsigned /*wait_nr*/, int64_t /*timeout_ns*/) {
    ++enters_;
    io_uring_sq& sq = ring_->sq;
    const unsigned submitted = sq.sqe_tail - sq.sqe_head;
    for (unsigned i = sq.sqe_head; i != sq.sqe_tail; ++i) {
      issued_.push_back(sq.sqes[i & sq.ring_mask]);
    }
    sq.sqe_head = sq.sqe_tail;
    sq_tail_ = sq.sqe_tail;
    sq_head_ = sq.sqe_tail;  // the kernel consumed them
    return static_cast<int>(submitted);
  }
  unsigned CqReady() { return io_uring_cq_ready(ring_); }

  // Completes the `n` oldest issued SQEs, each with result `res`.
  void Complete(size_t n, int32_t res) {
    for (size_t i = 0; i < n; ++i) {
      ASSERT_FALSE(issued_.empty());
      io_uring_cqe& cqe = cqes_[cq_tail_ & ring_->cq.ring_mask];
      cqe.user_data = issued_.front().user_data;
      cqe.res = res;
      cqe.flags = 0;
      issued_.pop_front();
      ++cq_tail_;
    }
  }

  const std::deque<io_uring_sqe>& issued() const { return issued_; }
  int enters() const { return enters_; }

 private:
  io_uring* ring_ = nullptr;
  io_uring saved_{};
  std::vector<io_uring_sqe> sqes_;
  std::vector<unsigned> array_;
  std::vector<io_uring_cqe> cqes_;
  unsigned sq_head_ = 0, sq_tail_ = 0, sq_flags_ = 0, dropped_ = 0;
  unsigned cq_head_ = 0, cq_tail_ = 0, cq_flags_ = 0, overflow_ = 0;
  std::deque<io_uring_sqe> issued_;
  int enters_ = 0;
};

// Returns the stamps it is given, in order (the Clock concept).
struct ScriptedClock {
  std::vector<int64_t> ticks;
  size_t next = 0;
  int64_t operator()() { return ticks.at(next++); }
};

constexpr uint32_t kQueueDepth = 8;
constexpr uint32_t kBlock = 4096;
constexpr uint64_t kTargetBytes = 1 << 20;

// A thread set up for real on a 1 MiB file target, its ring then replaced
// by a FakeRing (and put back before it is torn down).
class SubmitterFakeRingTest : public ::testing::Test {
 protected:
  void SetUpThread(Op op, uint32_t read_percent, RequestCacheMode cache,
                   absl::Duration io_timeout = absl::Seconds(30)) {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/submitter_target_",
                         getpid(), ".dat");
    fd_ = open(path_.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
    ASSERT_EQ(ftruncate(fd_, kTargetBytes), 0);
    WorkloadSpec spec;
    spec.targets.push_back({.path = path_, .allow_write = true});
    spec.runtime = absl::Seconds(1);
    spec.op = op;
    spec.read_percent = read_percent;
    spec.block_size = kBlock;
    spec.queue_depth = kQueueDepth;
    spec.submit_batch = kQueueDepth;
    spec.threads = 1;
    spec.direct = false;  // TEST_TMPDIR may be a tmpfs
    spec.fixed_buffers = false;
    spec.registered_files = false;
    spec.request_cache = cache;
    spec.io_timeout = io_timeout;
    absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, EngineLimits{});
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    resolved_ = std::make_unique<ResolvedSpec>(*std::move(resolved));
    pool_ = std::make_unique<SharedRequestPool<Request>>(kQueueDepth);
    control_.shared_requests = pool_.get();
    control_.split_strategies[0] = resolved_->spec.split;
    thread_ = std::make_unique<SubmitterThread>(*resolved_, 0,
                                                std::vector<int>{fd_},
                                                &control_);
    const absl::Status setup = SubmitterThreadPeer::Setup(*thread_);
    ASSERT_TRUE(setup.ok()) << setup;
    fake_.Install(&SubmitterThreadPeer::Ring(*thread_));
  }

  void TearDown() override {
    fake_.Uninstall();
    thread_.reset();
    if (fd_ >= 0) close(fd_);
    if (!path_.empty()) unlink(path_.c_str());
  }

  // One turn's enter through io_turn.h's seam: stamps submit at
  // `submit_ns` and issue at `issued_ns`.
  void Enter(uint16_t slot, uint32_t prepped, int64_t submit_ns,
             int64_t issued_ns) {
    SubmitterThreadPeer::Turns(*thread_).Start(slot, prepped);
    ScriptedClock clock{{submit_ns, issued_ns}};
    const TurnResult turn = EnterAndStamp(
        fake_, clock, &SubmitterThreadPeer::Turns(*thread_).stamps(slot),
        prepped, /*wait_nr=*/0, LatencyMode::kBatch, /*timeout_ns=*/0);
    EXPECT_EQ(turn.ret, static_cast<int>(prepped));
    EXPECT_EQ(turn.reap_ns, issued_ns);
  }

  static LatencyHistogram Copy(const LiveLatencyHistogram& live) {
    LatencyHistogram out;
    live.SnapshotTo(&out);
    return out;
  }

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<ResolvedSpec> resolved_;
  std::unique_ptr<SharedRequestPool<Request>> pool_;
  SubmitterControl control_;
  std::unique_ptr<SubmitterThread> thread_;
  FakeRing fake_{2 * kQueueDepth};
};

TEST_F(SubmitterFakeRingTest, OwnRequestsPrepareReapCountAndStampLatency) {
  SetUpThread(Op::kRandRead, 100, RequestCacheMode::kPerCpu);
  SubmitterThread& s = *thread_;
  PerCpuRequestCache<Request>& cache = SubmitterThreadPeer::PerCpuCache(s);
  ASSERT_EQ(cache.size(), kQueueDepth);

  const uint16_t slot = SubmitterThreadPeer::Turns(s).NextSlot();
  const uint32_t prepped =
      SubmitterThreadPeer::Prepare<IoMode::kPlain>(s, cache, 5, slot);
  ASSERT_EQ(prepped, 5u);
  EXPECT_EQ(SubmitterThreadPeer::Inflight(s), 5u);
  EXPECT_EQ(cache.size(), kQueueDepth - 5);
  EXPECT_EQ(SubmitterThreadPeer::Stats(s).sqes.Get(), 5u);
  Enter(slot, prepped, /*submit_ns=*/1'000, /*issued_ns=*/1'300);
  ASSERT_EQ(fake_.issued().size(), 5u);
  std::set<const Request*> requests;
  for (const io_uring_sqe& sqe : fake_.issued()) {
    EXPECT_EQ(sqe.opcode, IORING_OP_READ);
    EXPECT_EQ(sqe.fd, fd_);
    EXPECT_EQ(sqe.len, kBlock);
    EXPECT_EQ(sqe.off % kBlock, 0u);
    EXPECT_LE(sqe.off + kBlock, kTargetBytes);
    const CompletionTag<Request> tag(sqe.user_data);
    EXPECT_EQ(tag.turn_slot(), slot);
    EXPECT_TRUE(tag.whole());
    EXPECT_FALSE(tag.write());
    const Request* req = tag.request();
    const Request* first = SubmitterThreadPeer::Requests(s);
    ASSERT_GE(req, first);
    ASSERT_LT(req, first + kQueueDepth);
    // Request i keeps buffer slot i: the SQE's address is that slot's.
    EXPECT_EQ(req->buffer, static_cast<uint16_t>(req - first));
    EXPECT_EQ(req->offset, sqe.off);
    requests.insert(req);
  }
  EXPECT_EQ(requests.size(), 5u);  // five distinct requests

  // Three complete; the reap 700 ns after the issue.
  fake_.Complete(3, kBlock);
  EXPECT_EQ(SubmitterThreadPeer::Reap(s, cache, /*now_ns=*/2'000), 3u);
  const ThreadStats& stats = SubmitterThreadPeer::Stats(s);
  EXPECT_EQ(SubmitterThreadPeer::Inflight(s), 2u);
  EXPECT_EQ(cache.size(), kQueueDepth - 2);
  EXPECT_EQ(stats.ios.Get(), 3u);
  EXPECT_EQ(stats.read_ios.Get(), 3u);
  EXPECT_EQ(stats.write_ios.Get(), 0u);
  EXPECT_EQ(stats.bytes.Get(), 3u * kBlock);
  EXPECT_EQ(io_uring_cq_ready(&fake_.uring()), 0u);  // the CQ advanced
  LatencyHistogram total = Copy(stats.latency);
  ASSERT_EQ(total.Count(), 3u);
  EXPECT_EQ(total.Min(), 1'000u);  // reap - submit
  EXPECT_EQ(total.Max(), 1'000u);
  LatencyHistogram slat = Copy(stats.submit_latency);
  ASSERT_EQ(slat.Count(), 3u);
  EXPECT_EQ(slat.Max(), 300u);  // issued - submit
  LatencyHistogram clat = Copy(stats.completion_latency);
  ASSERT_EQ(clat.Count(), 3u);
  EXPECT_EQ(clat.Max(), 700u);  // reap - issued

  // The other two: one failed (EIO), one short. Both complete their I/O,
  // count as errors, not as I/Os, and give their requests back.
  fake_.Complete(1, -EIO);
  fake_.Complete(1, kBlock / 2);
  control_.stop.store(false);
  EXPECT_EQ(SubmitterThreadPeer::Reap(s, cache, /*now_ns=*/5'000), 2u);
  EXPECT_EQ(SubmitterThreadPeer::Inflight(s), 0u);
  EXPECT_EQ(cache.size(), kQueueDepth);
  EXPECT_EQ(stats.ios.Get(), 3u);
  EXPECT_EQ(stats.error_total.Get(), 2u);
  EXPECT_EQ(stats.errors[EIO].Get(), 1u);
  EXPECT_EQ(stats.errors[kShortTransferSlot].Get(), 1u);
  EXPECT_TRUE(control_.stop.load());  // continue_on_error is off
  EXPECT_EQ(Copy(stats.latency).Count(), 3u);  // failures are not timed
}

// Two reads submitted at 1 ms that never complete, io_timeout 1 s (a stall
// check every 250 ms while the thread runs).
TEST_F(SubmitterFakeRingTest, ADeviceThatStopsCompletingIsBlamedOnTheDevice) {
  SetUpThread(Op::kRandRead, 100, RequestCacheMode::kPerCpu, absl::Seconds(1));
  SubmitterThread& s = *thread_;
  PerCpuRequestCache<Request>& cache = SubmitterThreadPeer::PerCpuCache(s);
  const uint16_t slot = SubmitterThreadPeer::Turns(s).NextSlot();
  ASSERT_EQ(SubmitterThreadPeer::Prepare<IoMode::kPlain>(s, cache, 2, slot), 2u);
  constexpr int64_t kMs = 1'000'000;
  Enter(slot, 2, /*submit_ns=*/kMs, /*issued_ns=*/kMs + 300);
  // The thread kept running: a check every 250 ms, the fifth past 1 s.
  int64_t last = kMs;
  for (int64_t now = kMs + 250 * kMs; now <= kMs + 1000 * kMs; now += 250 * kMs) {
    EXPECT_FALSE(SubmitterThreadPeer::CheckStallsAt(s, last, now)) << now;
    last = now;
  }
  ASSERT_TRUE(SubmitterThreadPeer::CheckStallsAt(s, last, last + 250 * kMs));
  EXPECT_EQ(control_.fatal_error.errno_value, ETIMEDOUT);
  EXPECT_NE(control_.fatal_error.message.find("the device stopped completing"),
            std::string::npos)
      << control_.fatal_error.message;
  EXPECT_EQ(SubmitterThreadPeer::Stats(s).errors[ETIMEDOUT].Get(), 1u);
  EXPECT_TRUE(control_.stop.load());
}

TEST_F(SubmitterFakeRingTest, APausedDaemonIsNotBlamedOnTheDevice) {
  SetUpThread(Op::kRandRead, 100, RequestCacheMode::kPerCpu, absl::Seconds(1));
  SubmitterThread& s = *thread_;
  PerCpuRequestCache<Request>& cache = SubmitterThreadPeer::PerCpuCache(s);
  const uint16_t slot = SubmitterThreadPeer::Turns(s).NextSlot();
  ASSERT_EQ(SubmitterThreadPeer::Prepare<IoMode::kPlain>(s, cache, 2, slot), 2u);
  constexpr int64_t kMs = 1'000'000;
  Enter(slot, 2, /*submit_ns=*/kMs, /*issued_ns=*/kMs + 300);
  // The thread did not run from its check at 1 ms until 5 s later (SIGSTOP):
  // the I/O outstanding for 5 s says nothing about the device.
  ASSERT_TRUE(SubmitterThreadPeer::CheckStallsAt(s, kMs, kMs + 5000 * kMs));
  const std::string& why = control_.fatal_error.message;
  EXPECT_EQ(control_.fatal_error.errno_value, 0);
  EXPECT_NE(why.find("the daemon was paused"), std::string::npos) << why;
  EXPECT_NE(why.find("did not run for 5s"), std::string::npos) << why;
  EXPECT_EQ(why.find("device stopped"), std::string::npos) << why;
  EXPECT_EQ(SubmitterThreadPeer::Stats(s).errors[ETIMEDOUT].Get(), 0u);
  EXPECT_TRUE(control_.stop.load());
}

TEST_F(SubmitterFakeRingTest, SharedRequestsTakeAndReturnFreeBufferSlots) {
  SetUpThread(Op::kRandRW, 50, RequestCacheMode::kShared);
  SubmitterThread& s = *thread_;
  SharedRequestCache<Request>& cache = SubmitterThreadPeer::SharedCache(s);
  ASSERT_EQ(SubmitterThreadPeer::FreeBuffers(s), kQueueDepth);

  uint32_t reads = 0, writes = 0;
  int64_t t = 10'000;
  // Three turns: fill the queue, complete half, refill, complete all.
  for (int turn = 0; turn < 3; ++turn) {
    const uint32_t room = kQueueDepth - SubmitterThreadPeer::Inflight(s);
    const uint16_t slot = SubmitterThreadPeer::Turns(s).NextSlot();
    const uint32_t prepped =
        SubmitterThreadPeer::Prepare<IoMode::kPlain>(s, cache, room, slot);
    ASSERT_EQ(prepped, room);
    EXPECT_EQ(SubmitterThreadPeer::FreeBuffers(s), 0u);
    Enter(slot, prepped, t, t + 100);
    // Every I/O in flight holds its own buffer slot.
    std::set<uint16_t> buffers;
    for (const io_uring_sqe& sqe : fake_.issued()) {
      const CompletionTag<Request> tag(sqe.user_data);
      buffers.insert(tag.request()->buffer);
      EXPECT_EQ(tag.write(), sqe.opcode == IORING_OP_WRITE);
      EXPECT_TRUE(sqe.opcode == IORING_OP_WRITE ||
                  sqe.opcode == IORING_OP_READ);
    }
    EXPECT_EQ(buffers.size(), fake_.issued().size());
    const size_t done = turn == 2 ? fake_.issued().size() : kQueueDepth / 2;
    for (size_t i = 0; i < done; ++i) {
      (CompletionTag<Request>(fake_.issued()[i].user_data).write() ? writes
                                                                   : reads)++;
    }
    fake_.Complete(done, kBlock);
    t += 1'000;
    EXPECT_EQ(SubmitterThreadPeer::Reap(s, cache, t), done);
    EXPECT_EQ(SubmitterThreadPeer::FreeBuffers(s),
              kQueueDepth - SubmitterThreadPeer::Inflight(s));
  }
  const ThreadStats& stats = SubmitterThreadPeer::Stats(s);
  EXPECT_EQ(SubmitterThreadPeer::Inflight(s), 0u);
  EXPECT_EQ(SubmitterThreadPeer::FreeBuffers(s), kQueueDepth);
  EXPECT_EQ(stats.ios.Get(), 16u);  // 8 + 4 + 4
  EXPECT_EQ(stats.read_ios.Get(), reads);
  EXPECT_EQ(stats.write_ios.Get(), writes);
  EXPECT_GT(reads, 0u);  // a 50 % mix of 16 draws has both
  EXPECT_GT(writes, 0u);
  EXPECT_EQ(stats.sqes.Get(), 16u);
  EXPECT_EQ(fake_.enters(), 3);
  EXPECT_EQ(Copy(stats.latency).Count(), 16u);
}

// The header's example, as written there, on a NOP workload of 64 I/Os:
// a real ring and a few real turns of the loop.
TEST(SubmitterUsageTest, UsageExampleRunsANopWorkload) {
  WorkloadSpec spec;
  spec.nop = true;
  spec.io_count = 64;
  spec.threads = 1;
  spec.queue_depth = 8;
  absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, EngineLimits{});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  const ResolvedSpec& resolved_spec = *resolved;
  const int index = 0;
  const std::vector<int> fds = {-1};  // a NOP names no file
  SharedRequestPool<Request> pool(resolved_spec.spec.queue_depth);
  absl::Notification ended;
  const auto loop_done = [&] { ended.Notify(); };
  ThreadSnapshot thread_snapshot;

  SubmitterControl control;                 // shared_requests, strategies
  control.shared_requests = &pool;
  control.split_strategies[0] = resolved_spec.spec.split;
  SubmitterThread s(resolved_spec, index, fds, &control);
  std::thread t([&] { s.ThreadMain(loop_done); });  // set up, gate, run
  s.ready().WaitForNotification();
  if (!s.setup_status().ok()) {
    control.abort = true;
    control.go.Open();
    t.join();
    FAIL() << s.setup_status();
  }
  control.go.Open();                // every submitter starts
  ended.WaitForNotification();
  s.Snapshot(&thread_snapshot);
  control.stop = true;
  t.join();

  EXPECT_EQ(thread_snapshot.ios, 64u);
  EXPECT_EQ(thread_snapshot.sqes, 64u);
  EXPECT_EQ(thread_snapshot.read_ios, 64u);  // a NOP counts as a read
  EXPECT_TRUE(s.exited());
}

}  // namespace
}  // namespace blkperf::internal

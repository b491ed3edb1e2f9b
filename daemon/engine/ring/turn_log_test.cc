#include "daemon/engine/ring/turn_log.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "model/histogram.h"

namespace blkperf::internal {
namespace {

TEST(TurnLogTest, CapacityIsAPowerOfTwoAboveTheInflightLimit) {
  EXPECT_EQ(TurnLog(1).capacity(), 2u);
  EXPECT_EQ(TurnLog(127).capacity(), 128u);
  EXPECT_EQ(TurnLog(128).capacity(), 256u);
  EXPECT_EQ(TurnLog(TurnLog::kMaxInflight).capacity(), 65536u);
}

TEST(TurnLogTest, SlotsGoRoundAndAFreeOneIsOnlyTakenAtStart) {
  TurnLog log(3);  // 4 slots
  EXPECT_EQ(log.NextSlot(), 0);
  EXPECT_EQ(log.NextSlot(), 0);  // not taken until Start
  log.Start(0, 2);
  EXPECT_EQ(log.NextSlot(), 1);
  log.Start(1, 1);
  log.Complete(0, 2);
  log.Start(log.NextSlot(), 1);  // 2
  log.Start(log.NextSlot(), 1);  // 3
  EXPECT_EQ(log.NextSlot(), 0);  // round again: 0 is free
}

TEST(TurnLogTest, NeverReusesASlotThatStillHoldsIo) {
  // One I/O of an early turn stalls while every other completes: as many
  // turns as the log's capacity later, its slot (and stamps) are intact.
  TurnLog log(4);  // 8 slots
  const uint16_t stalled = log.NextSlot();
  log.Start(stalled, 1);
  log.stamps(stalled) = {100, 150};
  std::mt19937_64 rng(5);
  std::set<uint16_t> busy = {stalled};
  for (int turn = 0; turn < 1000; ++turn) {
    const uint16_t slot = log.NextSlot();
    ASSERT_EQ(busy.count(slot), 0u) << "turn " << turn;
    log.Start(slot, 1);
    log.stamps(slot) = {1000 + turn, 1001 + turn};
    busy.insert(slot);
    // Hold at most 4 I/Os in flight: the stalled one and up to 3 others,
    // completed in a random order.
    while (busy.size() > 1 + rng() % 4) {
      auto it = busy.begin();
      std::advance(it, rng() % busy.size());
      if (*it == stalled) continue;
      log.Complete(*it, 1);
      busy.erase(it);
    }
  }
  EXPECT_EQ(log.outstanding(stalled), 1u);
  EXPECT_EQ(log.stamps(stalled).submit_ns, 100);
  EXPECT_EQ(log.OldestSubmitNs(), 100);
}

TEST(TurnLogTest, OldestSubmitIsTheEarliestTurnWithIoInFlight) {
  TurnLog log(8);
  EXPECT_EQ(log.OldestSubmitNs(), std::nullopt);
  const int64_t submits[] = {500, 300, 900};
  uint16_t slots[3];
  for (int i = 0; i < 3; ++i) {
    slots[i] = log.NextSlot();
    log.Start(slots[i], 2);
    log.stamps(slots[i]) = {submits[i], submits[i] + 1};
  }
  EXPECT_EQ(log.OldestSubmitNs(), 300);
  log.Complete(slots[1], 2);
  EXPECT_EQ(log.OldestSubmitNs(), 500);
  log.Complete(slots[0], 1);
  EXPECT_EQ(log.OldestSubmitNs(), 500);  // one of its two still in flight
  log.Complete(slots[0], 1);
  log.Complete(slots[2], 2);
  EXPECT_EQ(log.OldestSubmitNs(), std::nullopt);
}

// One completed I/O: its turn's slot and whether its latencies count.
struct Done {
  uint16_t slot;
  bool record;
};

// The naive twin: three Records per recorded I/O, as the loop did before
// runs.
void RecordEach(const TurnLog& log, const std::vector<Done>& ios,
                int64_t reap_ns, LatencyHistogram* total,
                LatencyHistogram* slat, LatencyHistogram* clat) {
  for (const Done& io : ios) {
    if (!io.record) continue;
    const TurnLog::Stamps& s = log.stamps(io.slot);
    total->Record(static_cast<uint64_t>(reap_ns - s.submit_ns));
    slat->Record(static_cast<uint64_t>(s.issued_ns - s.submit_ns));
    clat->Record(static_cast<uint64_t>(reap_ns - s.issued_ns));
  }
}

void RecordRuns(TurnLog* log, const std::vector<Done>& ios, int64_t reap_ns,
                LatencyHistogram* total, LatencyHistogram* slat,
                LatencyHistogram* clat) {
  CompletionRun<LatencyHistogram> run(log, total, slat, clat, reap_ns);
  for (const Done& io : ios) run.Add(io.slot, io.record);
  run.Flush();
}

TEST(CompletionRunTest, OneRunIsRecordedAsItsCount) {
  TurnLog log(64);
  const uint16_t slot = log.NextSlot();
  log.Start(slot, 40);
  log.stamps(slot) = {1000, 1500};
  LatencyHistogram total, slat, clat;
  std::vector<Done> ios(32, Done{slot, true});
  RecordRuns(&log, ios, 4000, &total, &slat, &clat);
  ASSERT_EQ(total.Count(), 32u);
  EXPECT_EQ(total.Sum(), 32u * 3000);
  EXPECT_EQ(slat.Sum(), 32u * 500);
  EXPECT_EQ(clat.Sum(), 32u * 2500);
  EXPECT_EQ(clat.Min(), 2500u);
  EXPECT_EQ(clat.Max(), 2500u);
  EXPECT_EQ(log.outstanding(slot), 8u);
}

TEST(CompletionRunTest, NothingAddedRecordsNothing) {
  TurnLog log(4);
  LatencyHistogram total, slat, clat;
  RecordRuns(&log, {}, 4000, &total, &slat, &clat);
  EXPECT_EQ(total.Count(), 0u);
  EXPECT_EQ(slat.Count(), 0u);
  EXPECT_EQ(clat.Count(), 0u);
}

TEST(CompletionRunTest, UnrecordedIosCompleteButAreNotTimed) {
  TurnLog log(8);
  const uint16_t slot = log.NextSlot();
  log.Start(slot, 5);
  log.stamps(slot) = {10, 20};
  LatencyHistogram total, slat, clat;
  RecordRuns(&log, {{slot, false}, {slot, true}, {slot, false}}, 50, &total,
             &slat, &clat);
  EXPECT_EQ(total.Count(), 1u);
  EXPECT_EQ(total.Sum(), 40u);
  EXPECT_EQ(log.outstanding(slot), 2u);
}

// Completions from a few turns, interleaved as completions can be (runs
// broken and resumed): the histograms equal the per-I/O records exactly,
// and every turn's outstanding count drops by exactly its completions.
TEST(CompletionRunTest, MatchesPerIoRecordsOnInterleavedTurns) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    TurnLog log(512);
    const int64_t reap_ns = 10'000'000 + static_cast<int64_t>(rng() % 1000);
    std::vector<uint16_t> slots;
    for (int t = 0, n = 1 + rng() % 5; t < n; ++t) {
      const uint16_t slot = log.NextSlot();
      log.Start(slot, 300);
      const int64_t submit = static_cast<int64_t>(rng() % 9'000'000);
      log.stamps(slot) = {submit,
                          submit + static_cast<int64_t>(rng() % 500'000)};
      slots.push_back(slot);
    }
    std::vector<Done> ios;
    std::vector<uint32_t> per_slot(log.capacity(), 0);
    for (int i = 0, n = rng() % 300; i < n; ++i) {
      // Mostly the same turn as the previous I/O, sometimes another.
      const size_t turn = (rng() % 4 == 0 || ios.empty())
                              ? rng() % slots.size()
                              : i % 7 == 0 ? 0 : slots.size() - 1;
      ios.push_back({slots[turn], rng() % 5 != 0});
      ++per_slot[slots[turn]];
    }
    LatencyHistogram each_total, each_slat, each_clat;
    LatencyHistogram run_total, run_slat, run_clat;
    RecordEach(log, ios, reap_ns, &each_total, &each_slat, &each_clat);
    RecordRuns(&log, ios, reap_ns, &run_total, &run_slat, &run_clat);
    ASSERT_EQ(run_total, each_total) << "trial " << trial;
    ASSERT_EQ(run_slat, each_slat) << "trial " << trial;
    ASSERT_EQ(run_clat, each_clat) << "trial " << trial;
    for (uint16_t slot : slots) {
      ASSERT_EQ(log.outstanding(slot), 300u - per_slot[slot])
          << "trial " << trial;
    }
  }
}

// Add(slot, ios, recorded), as the reap tells a run of whole I/Os at
// once, is exactly `ios` single Adds of which the first `recorded` count.
TEST(CompletionRunTest, AddingIosAtOnceIsAddingEachOfThem) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 500; ++trial) {
    TurnLog log_each(512), log_at_once(512);
    const int64_t reap_ns = 10'000'000;
    std::vector<uint16_t> slots;
    for (int t = 0, n = 1 + rng() % 4; t < n; ++t) {
      const uint16_t slot = log_each.NextSlot();
      ASSERT_EQ(log_at_once.NextSlot(), slot);
      const int64_t submit = static_cast<int64_t>(rng() % 9'000'000);
      const TurnLog::Stamps stamps{
          submit, submit + static_cast<int64_t>(rng() % 500'000)};
      for (TurnLog* log : {&log_each, &log_at_once}) {
        log->Start(slot, 400);
        log->stamps(slot) = stamps;
      }
      slots.push_back(slot);
    }
    std::vector<Done> each;
    LatencyHistogram total, slat, clat;
    CompletionRun<LatencyHistogram> run(&log_at_once, &total, &slat, &clat,
                                        reap_ns);
    for (int k = 0, n = rng() % 20; k < n; ++k) {
      const uint16_t slot = slots[rng() % slots.size()];
      const uint32_t ios = 1 + rng() % 8;
      const uint32_t recorded = rng() % (ios + 1);
      run.Add(slot, ios, recorded);
      for (uint32_t i = 0; i < ios; ++i) each.push_back({slot, i < recorded});
    }
    run.Flush();
    LatencyHistogram each_total, each_slat, each_clat;
    RecordRuns(&log_each, each, reap_ns, &each_total, &each_slat, &each_clat);
    ASSERT_EQ(total, each_total) << "trial " << trial;
    ASSERT_EQ(slat, each_slat) << "trial " << trial;
    ASSERT_EQ(clat, each_clat) << "trial " << trial;
    for (uint16_t slot : slots) {
      ASSERT_EQ(log_at_once.outstanding(slot), log_each.outstanding(slot))
          << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace blkperf::internal

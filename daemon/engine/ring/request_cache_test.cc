#include "daemon/engine/ring/request_cache.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAreArray;

struct Request {
  int id = 0;
};

// The caches are cache-line aligned (alignas(64)). ASan's fake stack
// (detect_stack_use_after_return, as tools/test.sh runs these tests) does
// not honour that alignment, so every test keeps its caches on the heap,
// as the engine does.

// Preallocated objects and their addresses, as the engine keeps them.
class Requests {
 public:
  explicit Requests(size_t n) : storage_(n) {
    for (size_t i = 0; i < n; ++i) {
      storage_[i].id = static_cast<int>(i);
      ptrs_.push_back(&storage_[i]);
    }
  }
  Request* operator[](size_t i) { return ptrs_[i]; }
  Request* const* data() const { return ptrs_.data(); }
  const std::vector<Request*>& all() const { return ptrs_; }
  size_t size() const { return ptrs_.size(); }

 private:
  std::vector<Request> storage_;
  std::vector<Request*> ptrs_;
};

template <typename Cache>
std::vector<Request*> DrainCache(Cache& cache) {
  std::vector<Request*> out;
  while (Request* r = cache.Get()) out.push_back(r);
  return out;
}

TEST(SharedRequestPoolTest, LifoGetPutAndBatches) {
  Requests reqs(5);
  SharedRequestPool<Request> pool(5);
  EXPECT_EQ(pool.capacity(), 5);
  EXPECT_EQ(pool.Get(), nullptr);
  pool.Put(reqs[0]);
  pool.Put(reqs[1]);
  pool.PutBatch(reqs.data() + 2, 3);  // reqs[4] ends on top
  EXPECT_EQ(pool.size(), 5);
  EXPECT_EQ(pool.Get(), reqs[4]);

  Request* out[8] = {};
  ASSERT_EQ(pool.GetBatch(out, 2), 2);
  // out[1] is the most recent, so popping from the back keeps LIFO order.
  EXPECT_EQ(out[0], reqs[2]);
  EXPECT_EQ(out[1], reqs[3]);
  ASSERT_EQ(pool.GetBatch(out, 8), 2);  // fewer than asked
  EXPECT_EQ(out[0], reqs[0]);
  EXPECT_EQ(out[1], reqs[1]);
  EXPECT_EQ(pool.GetBatch(out, 8), 0);
  EXPECT_EQ(pool.Get(), nullptr);
  EXPECT_EQ(pool.size(), 0);
}

TEST(SharedRequestPoolTest, OverfillAborts) {
  Requests reqs(2);
  SharedRequestPool<Request> pool(1);
  pool.Put(reqs[0]);
  EXPECT_DEATH(pool.Put(reqs[1]), "overfilled");
  EXPECT_DEATH(pool.PutBatch(reqs.data(), 2), "overfilled");
}

TEST(SharedRequestPoolTest, TwoThreadsLoseNothing) {
  constexpr size_t kN = 256;
  Requests reqs(kN);
  SharedRequestPool<Request> pool(kN);
  pool.PutBatch(reqs.data(), kN);

  auto worker = [&pool](uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Request*> held;
    Request* batch[16];
    for (int i = 0; i < 200'000; ++i) {
      switch (rng() % 4) {
        case 0:
          if (Request* r = pool.Get()) held.push_back(r);
          break;
        case 1: {
          const size_t k = pool.GetBatch(batch, 1 + rng() % 16);
          held.insert(held.end(), batch, batch + k);
          break;
        }
        case 2:
          if (!held.empty()) {
            pool.Put(held.back());
            held.pop_back();
          }
          break;
        case 3: {
          const size_t k = std::min<size_t>(held.size(), 1 + rng() % 16);
          pool.PutBatch(held.data() + held.size() - k, k);
          held.resize(held.size() - k);
          break;
        }
      }
    }
    pool.PutBatch(held.data(), held.size());
  };
  std::thread a(worker, 1);
  std::thread b(worker, 2);
  a.join();
  b.join();

  EXPECT_EQ(pool.size(), kN);
  std::vector<Request*> drained = DrainCache(pool);
  EXPECT_EQ(std::set<Request*>(drained.begin(), drained.end()).size(), kN);
  EXPECT_THAT(drained, UnorderedElementsAreArray(reqs.all()));
}

TEST(PerCpuRequestCacheTest, ExhaustionReturnsNull) {
  Requests reqs(3);
  SharedRequestPool<Request> pool(3);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  EXPECT_EQ(cache.Get(), nullptr);  // both empty
  EXPECT_EQ(cache.misses(), 1);

  cache.Fill(reqs.data(), 3);
  EXPECT_EQ(cache.size(), 3);
  EXPECT_EQ(pool.size(), 0);
  std::vector<Request*> got = DrainCache(cache);
  EXPECT_THAT(got, ElementsAre(reqs[0], reqs[1], reqs[2]));  // filled order
  EXPECT_EQ(cache.Get(), nullptr);
  EXPECT_EQ(cache.hits(), 3);
  EXPECT_EQ(cache.misses(), 3);  // the first Get plus two on empty
}

// Each request (and so the buffer it keeps) is used in turn: one put back
// waits until every one put before it was handed out again.
TEST(PerCpuRequestCacheTest, ReuseIsFirstInFirstOut) {
  Requests reqs(4);
  SharedRequestPool<Request> pool(4);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 4);
  Request* a = cache.Get();
  Request* b = cache.Get();
  EXPECT_EQ(a, reqs[0]);
  EXPECT_EQ(b, reqs[1]);
  cache.Put(b);
  cache.Put(a);
  EXPECT_EQ(cache.Get(), reqs[2]);
  EXPECT_EQ(cache.Get(), reqs[3]);
  EXPECT_EQ(cache.Get(), b);  // first put back, first out
  EXPECT_EQ(cache.Get(), a);
}

// Requests taken and put back in batches, as a submitter does, wrap around
// the ring and still come out in the order they went in.
TEST(PerCpuRequestCacheTest, BatchesAroundTheRingKeepTheOrder) {
  Requests reqs(5);
  SharedRequestPool<Request> pool(5);
  auto cache = std::make_unique<PerCpuRequestCache<Request>>(5, &pool);
  cache->Fill(reqs.data(), 5);
  std::vector<Request*> order;  // every object out, in the order it left
  for (int round = 0; round < 7; ++round) {
    std::vector<Request*> batch(3);
    batch.resize(cache->GetBatch(batch.data(), 3));
    ASSERT_EQ(batch.size(), 3u);
    order.insert(order.end(), batch.begin(), batch.end());
    PerCpuRequestCache<Request>::PutRun puts(*cache);
    for (Request* r : batch) puts.Put(r);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i], reqs[i % 5]) << "out " << i;
  }
  EXPECT_EQ(pool.size(), 0u);
}

TEST(PerCpuRequestCacheTest, FillOverflowsToBacking) {
  Requests reqs(10);
  SharedRequestPool<Request> pool(10);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 10);
  EXPECT_EQ(cache.size(), 4);
  EXPECT_EQ(pool.size(), 6);
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.misses(), 0);
}

TEST(PerCpuRequestCacheTest, RefillFromBackingCountsAMiss) {
  Requests reqs(6);
  SharedRequestPool<Request> pool(6);
  pool.PutBatch(reqs.data(), 6);  // reqs[5] on top
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;

  // Local is empty: one miss refills half the capacity (2), the pool's top
  // two, the older of them first out.
  EXPECT_EQ(cache.Get(), reqs[4]);
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.size(), 1);
  EXPECT_EQ(pool.size(), 4);

  EXPECT_EQ(cache.Get(), reqs[5]);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
}

TEST(PerCpuRequestCacheTest, OverflowFlushesColdestHalfToBacking) {
  Requests reqs(5);
  SharedRequestPool<Request> pool(5);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 4);  // local full: reqs[0] put longest ago
  ASSERT_EQ(pool.size(), 0);

  cache.Put(reqs[4]);  // full: flush reqs[0], reqs[1], keep the rest
  EXPECT_EQ(pool.size(), 2);
  EXPECT_EQ(cache.size(), 3);
  EXPECT_THAT(DrainCache(cache),
              ElementsAre(reqs[2], reqs[3], reqs[4],  // local hits
                          reqs[0], reqs[1]));         // one refill
  EXPECT_EQ(cache.hits(), 4);    // 3 local + 1 from the refilled pair
  EXPECT_EQ(cache.misses(), 2);  // the refill and the final empty Get
  EXPECT_EQ(pool.size(), 0);
}

TEST(PerCpuRequestCacheTest, ScriptedHitsAndMisses) {
  Requests reqs(8);
  SharedRequestPool<Request> pool(8);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 8);  // 4 local, 4 in the pool

  std::vector<Request*> held;
  // 4 local hits, then each miss refills 2 of which it returns one.
  for (int i = 0; i < 4; ++i) held.push_back(cache.Get());
  held.push_back(cache.Get());      // miss: refill 2
  held.push_back(cache.Get());      // hit
  held.push_back(cache.Get());      // miss: refill 2
  held.push_back(cache.Get());      // hit
  EXPECT_EQ(cache.Get(), nullptr);  // miss: pool empty
  EXPECT_EQ(cache.hits(), 6);
  EXPECT_EQ(cache.misses(), 3);
  EXPECT_THAT(held, UnorderedElementsAreArray(reqs.all()));

  // Put all 8 back. Puts 1-4 fill the local array; put 5 flushes 2 (local
  // 3), put 6 fills it, put 7 flushes 2 more, put 8 fills it again. Puts
  // count neither hits nor misses.
  for (Request* r : held) cache.Put(r);
  EXPECT_EQ(cache.size(), 4);
  EXPECT_EQ(pool.size(), 4);
  EXPECT_EQ(cache.hits(), 6);
  EXPECT_EQ(cache.misses(), 3);
}

TEST(PerCpuRequestCacheTest, ForEachLocalVisitsExactlyTheLocalObjects) {
  Requests reqs(6);
  SharedRequestPool<Request> pool(6);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 6);  // 4 local, 2 in the pool
  Request* taken = cache.Get();
  std::vector<Request*> seen;
  cache.ForEachLocal([&](const Request* r) {
    seen.push_back(const_cast<Request*>(r));
  });
  EXPECT_THAT(seen, ElementsAre(reqs[1], reqs[2], reqs[3]));  // next out first
  EXPECT_EQ(taken, reqs[0]);
}

TEST(PerCpuRequestCacheTest, CapacityOneStillRefillsAndFlushes) {
  Requests reqs(3);
  SharedRequestPool<Request> pool(3);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(0, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;  // treated as 1
  EXPECT_EQ(cache.capacity(), 1);
  cache.Fill(reqs.data(), 3);
  EXPECT_EQ(cache.size(), 1);
  cache.Put(cache.Get());
  EXPECT_THAT(DrainCache(cache), ElementsAre(reqs[0], reqs[2], reqs[1]));
}

TEST(PerCpuRequestCacheTest, RandomSequencesLoseAndDuplicateNothing) {
  constexpr size_t kN = 100;
  Requests reqs(kN);
  SharedRequestPool<Request> pool(kN);
  auto cache_owner = std::make_unique<PerCpuRequestCache<Request>>(8, &pool);
  PerCpuRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), kN);

  std::mt19937_64 rng(99);
  std::set<Request*> held;
  uint64_t gets = 0;
  for (int i = 0; i < 100'000; ++i) {
    // Bias towards Get while few are held so both ends get exercised.
    if (held.empty() || rng() % 100 < 50) {
      ++gets;
      Request* r = cache.Get();
      if (r == nullptr) {
        ASSERT_EQ(held.size(), kN);
        continue;
      }
      ASSERT_TRUE(held.insert(r).second) << "handed out twice: " << r->id;
    } else {
      auto it = held.begin();
      std::advance(it, rng() % held.size());
      cache.Put(*it);
      held.erase(it);
    }
    ASSERT_EQ(held.size() + cache.size() + pool.size(), kN);
    ASSERT_LE(cache.size(), cache.capacity());
  }
  EXPECT_EQ(cache.hits() + cache.misses(), gets);
  for (Request* r : held) cache.Put(r);
  std::vector<Request*> all = DrainCache(cache);
  EXPECT_THAT(all, UnorderedElementsAreArray(reqs.all()));
}

TEST(SharedRequestCacheTest, EveryGetIsAMiss) {
  Requests reqs(3);
  SharedRequestPool<Request> pool(3);
  auto cache_owner = std::make_unique<SharedRequestCache<Request>>(&pool);
  SharedRequestCache<Request>& cache = *cache_owner;
  cache.Fill(reqs.data(), 3);
  EXPECT_EQ(pool.size(), 3);
  Request* r = cache.Get();
  EXPECT_EQ(r, reqs[2]);
  cache.Put(r);
  EXPECT_THAT(DrainCache(cache), ElementsAre(reqs[2], reqs[1], reqs[0]));
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.misses(), 5);  // 1 + 3 + the empty Get
}

// Up to n Gets, stopping at the first nullptr (which GetBatch also calls).
template <typename Cache>
std::vector<Request*> GetUpTo(Cache& cache, size_t n) {
  std::vector<Request*> out;
  while (out.size() < n) {
    Request* r = cache.Get();
    if (r == nullptr) break;
    out.push_back(r);
  }
  return out;
}

// GetBatch hands out what as many Gets would, in their order, and counts
// hits and misses as they would: twin caches over twin pools, one driven
// by Get and one by GetBatch, through refills, flushes and exhaustion.
template <typename Cache>
void ExpectGetBatchMatchesGets(std::function<std::unique_ptr<Cache>(
                                   SharedRequestPool<Request>*)> make) {
  constexpr size_t kN = 40;
  Requests reqs(kN);
  SharedRequestPool<Request> pool_a(kN), pool_b(kN);
  std::unique_ptr<Cache> by_get = make(&pool_a), by_batch = make(&pool_b);
  by_get->Fill(reqs.data(), kN);
  by_batch->Fill(reqs.data(), kN);
  std::mt19937_64 rng(7);
  std::vector<Request*> held;
  size_t exhausted = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = rng() % 24;
    std::vector<Request*> batch(n);
    batch.resize(by_batch->GetBatch(batch.data(), n));
    const std::vector<Request*> gets = GetUpTo(*by_get, n);
    ASSERT_EQ(batch, gets) << "round " << round;
    ASSERT_EQ(by_batch->hits(), by_get->hits()) << "round " << round;
    ASSERT_EQ(by_batch->misses(), by_get->misses()) << "round " << round;
    exhausted += gets.size() < n;
    held.insert(held.end(), gets.begin(), gets.end());
    // Give a random number back to both, newest first.
    for (size_t i = rng() % (held.size() + 1); i > 0; --i) {
      by_get->Put(held.back());
      by_batch->Put(held.back());
      held.pop_back();
    }
  }
  EXPECT_GT(exhausted, 0u);  // the script did run both caches dry
}

// The caches the twin tests below compare: a per-CPU cache smaller than
// what they hand out (so it refills and flushes), and the shared one.
std::unique_ptr<PerCpuRequestCache<Request>> PerCpuOf8(
    SharedRequestPool<Request>* pool) {
  return std::make_unique<PerCpuRequestCache<Request>>(8, pool);
}
std::unique_ptr<SharedRequestCache<Request>> SharedOver(
    SharedRequestPool<Request>* pool) {
  return std::make_unique<SharedRequestCache<Request>>(pool);
}

TEST(PerCpuRequestCacheTest, GetBatchIsThatManyGets) {
  ExpectGetBatchMatchesGets<PerCpuRequestCache<Request>>(PerCpuOf8);
}

TEST(SharedRequestCacheTest, GetBatchIsThatManyGets) {
  ExpectGetBatchMatchesGets<SharedRequestCache<Request>>(SharedOver);
}

// A PutRun leaves a cache as that many Puts would, in their order,
// flushing where they would: twin caches over twin pools, one given Puts
// and one a PutRun per batch (PutFitting while room() allows, then Put),
// compared by what they hand out next.
template <typename Cache>
void ExpectPutRunMatchesPuts(
    std::function<std::unique_ptr<Cache>(SharedRequestPool<Request>*)> make,
    bool expect_flushes) {
  constexpr size_t kN = 40;
  Requests reqs(kN);
  SharedRequestPool<Request> pool_a(kN), pool_b(kN);
  pool_a.PutBatch(reqs.data(), kN);
  pool_b.PutBatch(reqs.data(), kN);
  std::unique_ptr<Cache> by_put = make(&pool_a), by_run = make(&pool_b);
  std::mt19937_64 rng(5);
  size_t puts_past_room = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = rng() % 24;
    std::vector<Request*> taken = GetUpTo(*by_put, n);
    ASSERT_EQ(GetUpTo(*by_run, n), taken) << "round " << round;
    std::shuffle(taken.begin(), taken.end(), rng);
    for (Request* r : taken) by_put->Put(r);
    {
      typename Cache::PutRun run(*by_run);
      for (Request* r : taken) {
        if (run.room() > 0) {
          run.PutFitting(r);
        } else {
          run.Put(r);
          ++puts_past_room;
        }
      }
    }
    ASSERT_EQ(pool_b.size(), pool_a.size()) << "round " << round;
  }
  EXPECT_EQ(puts_past_room > 0, expect_flushes);
  EXPECT_EQ(DrainCache(*by_run), DrainCache(*by_put));
}

TEST(PerCpuRequestCacheTest, PutRunIsThatManyPuts) {
  ExpectPutRunMatchesPuts<PerCpuRequestCache<Request>>(
      PerCpuOf8, /*expect_flushes=*/true);
}

TEST(SharedRequestCacheTest, PutRunIsThatManyPuts) {
  ExpectPutRunMatchesPuts<SharedRequestCache<Request>>(
      SharedOver, /*expect_flushes=*/false);  // every Put goes to the pool
}

TEST(PerCpuRequestCacheTest, PutRunRoomIsWhatFitsBeforeAFlush) {
  Requests reqs(4);
  SharedRequestPool<Request> pool(4);
  auto cache = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  cache->Fill(reqs.data(), 1);
  {
    PerCpuRequestCache<Request>::PutRun run(*cache);
    EXPECT_EQ(run.room(), 3u);
    run.PutFitting(reqs[1]);
    run.PutFitting(reqs[2]);
    EXPECT_EQ(run.room(), 1u);
    EXPECT_EQ(cache->size(), 1u);  // written back when the run ends
  }
  EXPECT_EQ(cache->size(), 3u);
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_THAT(DrainCache(*cache), ElementsAre(reqs[0], reqs[1], reqs[2]));
}

// Bulk Puts (next_places, Filled) in chunks of contiguous_room() leave the
// cache as Puts would: the places stop at the ring's end and resume at its
// start, in order.
TEST(PerCpuRequestCacheTest, PutRunBulkPlacesAreThatManyPuts) {
  constexpr size_t kCapacity = 5;
  Requests reqs(kCapacity);
  SharedRequestPool<Request> pool_a(kCapacity), pool_b(kCapacity);
  auto by_put =
      std::make_unique<PerCpuRequestCache<Request>>(kCapacity, &pool_a);
  auto by_bulk =
      std::make_unique<PerCpuRequestCache<Request>>(kCapacity, &pool_b);
  by_put->Fill(reqs.data(), kCapacity);
  by_bulk->Fill(reqs.data(), kCapacity);
  std::mt19937_64 rng(11);
  size_t chunks_cut_by_the_end = 0;
  for (int round = 0; round < 50; ++round) {
    const size_t n = 1 + rng() % kCapacity;
    std::vector<Request*> taken = GetUpTo(*by_put, n);
    ASSERT_EQ(GetUpTo(*by_bulk, n), taken) << "round " << round;
    std::shuffle(taken.begin(), taken.end(), rng);
    for (Request* r : taken) by_put->Put(r);
    PerCpuRequestCache<Request>::PutRun run(*by_bulk);
    size_t done = 0;
    while (done < taken.size()) {
      const size_t room = run.contiguous_room();
      ASSERT_GT(room, 0u) << "round " << round;
      ASSERT_LE(room, run.room());
      const size_t chunk = std::min(room, taken.size() - done);
      chunks_cut_by_the_end += chunk < taken.size() - done;
      std::copy_n(taken.begin() + done, chunk, run.next_places());
      run.Filled(chunk);
      done += chunk;
    }
  }
  EXPECT_GT(chunks_cut_by_the_end, 0u);  // the ring's end was met
  EXPECT_EQ(pool_b.size(), 0u);
  EXPECT_EQ(DrainCache(*by_bulk), DrainCache(*by_put));
}

TEST(PerCpuRequestCacheTest, PutRunContiguousRoomIsZeroOnlyWhenFull) {
  Requests reqs(4);
  SharedRequestPool<Request> pool(4);
  auto cache = std::make_unique<PerCpuRequestCache<Request>>(4, &pool);
  cache->Fill(reqs.data(), 4);
  PerCpuRequestCache<Request>::PutRun run(*cache);
  EXPECT_EQ(run.room(), 0u);
  EXPECT_EQ(run.contiguous_room(), 0u);
}

// The engine's code path, written once against either cache type.
template <typename Cache>
size_t RunFakeQueue(Cache& cache, int depth) {
  std::vector<Request*> inflight;
  for (int round = 0; round < 10; ++round) {
    while (static_cast<int>(inflight.size()) < depth) {
      Request* r = cache.Get();
      if (r == nullptr) break;
      inflight.push_back(r);
    }
    while (!inflight.empty()) {
      cache.Put(inflight.back());
      inflight.pop_back();
    }
  }
  return inflight.size();
}

TEST(RequestCacheTest, BothCacheTypesServeTheSameEngineCode) {
  Requests reqs(16);
  SharedRequestPool<Request> pool_a(16), pool_b(16);
  auto percpu_owner = std::make_unique<PerCpuRequestCache<Request>>(8, &pool_a);
  PerCpuRequestCache<Request>& percpu = *percpu_owner;
  auto shared_owner = std::make_unique<SharedRequestCache<Request>>(&pool_b);
  SharedRequestCache<Request>& shared = *shared_owner;
  percpu.Fill(reqs.data(), 16);
  shared.Fill(reqs.data(), 16);
  EXPECT_EQ(RunFakeQueue(percpu, 12), 0);
  EXPECT_EQ(RunFakeQueue(shared, 12), 0);
  EXPECT_EQ(percpu.hits() + percpu.misses(), 120);
  EXPECT_EQ(shared.misses(), 120);
  EXPECT_GT(percpu.hits(), percpu.misses());
  EXPECT_THAT(DrainCache(percpu), UnorderedElementsAreArray(reqs.all()));
  EXPECT_THAT(DrainCache(shared), UnorderedElementsAreArray(reqs.all()));
}

TEST(RequestCacheTest, CachesAreCacheLineAligned) {
  EXPECT_EQ(alignof(PerCpuRequestCache<Request>), ABSL_CACHELINE_SIZE);
  EXPECT_EQ(alignof(SharedRequestCache<Request>), ABSL_CACHELINE_SIZE);
}

}  // namespace
}  // namespace blkperf

// Get+Put pairs through the per-cpu cache versus the shared (locked) pool:
// the A/B behind `request_cache: percpu|shared`.
//
//   bazel run -c opt //daemon/engine/ring:request_cache_benchmark
#include <cstddef>
#include <vector>

#include "benchmark/benchmark.h"
#include "daemon/engine/ring/request_cache.h"

namespace blkperf {
namespace {

struct Request {
  char payload[64];
};

constexpr size_t kPerThread = 128;
constexpr int kMaxThreads = 2;

// One pool for all threads of a run, as the engine shares one across its
// submitters; requests are preallocated for the largest thread count.
struct Shared {
  std::vector<Request> requests{kPerThread * kMaxThreads};
  SharedRequestPool<Request> pool{kPerThread * kMaxThreads};
};

Shared& GetShared() {
  static Shared* shared = new Shared;
  return *shared;
}

Request* const* ThreadRequests(int thread_index) {
  static const std::vector<Request*>* ptrs = [] {
    auto* v = new std::vector<Request*>;
    for (Request& r : GetShared().requests) v->push_back(&r);
    return v;
  }();
  return ptrs->data() + kPerThread * thread_index;
}

void BM_PerCpuGetPut(benchmark::State& state) {
  SharedRequestPool<Request>& pool = GetShared().pool;
  PerCpuRequestCache<Request> cache(kPerThread, &pool);
  cache.Fill(ThreadRequests(state.thread_index()), kPerThread);
  for (auto _ : state) {
    Request* r = cache.Get();
    benchmark::DoNotOptimize(r);
    cache.Put(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["miss_rate"] =
      benchmark::Counter(static_cast<double>(cache.misses()) /
                         static_cast<double>(cache.hits() + cache.misses()));
  // Leave the pool empty for the next run; everything is local here.
  while (cache.Get() != nullptr) {
  }
}
BENCHMARK(BM_PerCpuGetPut)->Threads(1)->Threads(2);

void BM_SharedGetPut(benchmark::State& state) {
  SharedRequestPool<Request>& pool = GetShared().pool;
  SharedRequestCache<Request> cache(&pool);
  if (state.thread_index() == 0) {
    // Benchmark starts all threads' timed loops together, after this, so the
    // pool is full before anyone's first Get.
    cache.Fill(ThreadRequests(0), kPerThread * kMaxThreads);
  }
  for (auto _ : state) {
    Request* r = cache.Get();
    benchmark::DoNotOptimize(r);
    if (r != nullptr) cache.Put(r);
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    // Drain for the next run. No thread leaves its timed loop before all
    // have finished theirs, so nothing is in flight here.
    Request* out[kPerThread * kMaxThreads];
    (void)pool.GetBatch(out, kPerThread * kMaxThreads);
  }
}
BENCHMARK(BM_SharedGetPut)->Threads(1)->Threads(2);

}  // namespace
}  // namespace blkperf

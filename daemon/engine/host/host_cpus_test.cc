#include "daemon/engine/host/host_cpus.h"

#include <sched.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(PlacementCpusTest, IsTheOnlineCpusInTheMask) {
  EXPECT_EQ(PlacementCpus({0, 1, 2, 3}, {1, 3, 5}), (std::vector<int>{1, 3}));
  EXPECT_EQ(PlacementCpus({0, 1, 2, 3}, {0, 1, 2, 3, 4, 5}),
            (std::vector<int>{0, 1, 2, 3}));
}

TEST(PlacementCpusTest, FallsBackToEveryOnlineCpuWhenTheMaskHasNone) {
  EXPECT_EQ(PlacementCpus({0, 1}, {}), (std::vector<int>{0, 1}));
  EXPECT_EQ(PlacementCpus({0, 1}, {7}), (std::vector<int>{0, 1}));
}

TEST(FillDefaultCpusTest, GivesThreadsWithoutAnEntryThePlacementRoundRobin) {
  std::vector<int> cpus;
  FillDefaultCpus({2, 5}, 5, &cpus);
  EXPECT_EQ(cpus, (std::vector<int>{2, 5, 2, 5, 2}));
  // Thread i's CPU follows its index, after the entries given.
  cpus = {7};
  FillDefaultCpus({2, 5}, 3, &cpus);
  EXPECT_EQ(cpus, (std::vector<int>{7, 5, 2}));
  cpus = {7, 6};
  FillDefaultCpus({2, 5}, 1, &cpus);
  EXPECT_EQ(cpus, (std::vector<int>{7, 6}));
  cpus.clear();
  FillDefaultCpus({}, 3, &cpus);
  EXPECT_TRUE(cpus.empty());
}

TEST(OnlineCpusTest, AreAscendingAndIncludeTheCallingThreadsCpu) {
  const std::vector<int> online = OnlineCpus();
  ASSERT_FALSE(online.empty());
  EXPECT_TRUE(std::is_sorted(online.begin(), online.end()));
  EXPECT_NE(std::find(online.begin(), online.end(), sched_getcpu()),
            online.end());
}

// The daemon re-pins its own threads (cpu_isolation.h); what it was started
// with stays its placement.
TEST(CurrentHostCpusTest, PlacesOnTheStartupMaskWhateverTheCallersMaskIsNow) {
  const std::vector<int> startup = StartupAffinityCpus();
  ASSERT_FALSE(startup.empty());
  const std::vector<int> online = OnlineCpus();
  HostCpus seen;
  std::thread confined([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(startup.back(), &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    seen = CurrentHostCpus();
  });
  confined.join();
  EXPECT_EQ(StartupAffinityCpus(), startup);
  EXPECT_EQ(seen.online, online);
  EXPECT_EQ(seen.placement, PlacementCpus(online, startup));
}

}  // namespace
}  // namespace blkperf

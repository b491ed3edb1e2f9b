#include "experiment/design.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(ParseVaryTest, FieldAndValuesInOrder) {
  absl::StatusOr<Vary> vary = ParseVary("split=none,limits,fixed:65536");
  ASSERT_TRUE(vary.ok()) << vary.status();
  EXPECT_EQ(vary->field, "split");
  EXPECT_EQ(vary->values,
            (std::vector<std::string>{"none", "limits", "fixed:65536"}));
  EXPECT_EQ(vary->ArmName(2), "split=fixed:65536");
}

TEST(ParseVaryTest, IdenticalValuesAreAnAaCalibration) {
  absl::StatusOr<Vary> vary = ParseVary("qd=32,32");
  ASSERT_TRUE(vary.ok()) << vary.status();
  EXPECT_EQ(vary->values.size(), 2u);
}

TEST(ParseVaryTest, RefusesBadTextNamingTheFlag) {
  for (const char* bad : {"qd", "=1,2", "qd=32", "qd=1,,2", "qd=1,", "q-d=1,2",
                          "qd=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}) {
    absl::StatusOr<Vary> vary = ParseVary(bad);
    ASSERT_FALSE(vary.ok()) << bad;
    EXPECT_EQ(vary.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(vary.status().message().find("--vary="), std::string::npos);
  }
}

TEST(BlockOrderTest, EachPairOfRoundsIsABlockAndItsReverse) {
  const auto order = BlockOrder(3, 9, 42);
  ASSERT_EQ(order.size(), 9u);
  for (size_t r = 0; r < order.size(); ++r) {
    std::vector<int> sorted = order[r];
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2})) << "round " << r;
    if (r % 2 == 1) {
      EXPECT_EQ(order[r], std::vector<int>(order[r - 1].rbegin(),
                                           order[r - 1].rend()));
    }
  }
}

TEST(BlockOrderTest, TwoArmsGetBothBlocksAndTheSeedDecides) {
  bool abba = false, baab = false;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto order = BlockOrder(2, 2, seed);
    EXPECT_EQ(order, BlockOrder(2, 2, seed));
    if (OrderText(order) == "AB BA") abba = true;
    if (OrderText(order) == "BA AB") baab = true;
  }
  EXPECT_TRUE(abba);
  EXPECT_TRUE(baab);
}

TEST(BlockOrderTest, EveryArmFirstEquallyOftenOverEvenRounds) {
  const auto order = BlockOrder(2, 20, 7);
  int a_first = 0;
  for (const auto& round : order) a_first += round[0] == 0;
  EXPECT_EQ(a_first, 10);
}

}  // namespace
}  // namespace blkperf

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

TEST(ArmsOfTest, VaryArmsSetTheirOneField) {
  const std::vector<ArmDesign> arms = ArmsOf(*ParseVary("qd=16,32"));
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[1].name, "qd=32");
  EXPECT_EQ(arms[1].OverridesText(), "qd=32");
}

TEST(ParseExperimentArmsTest, NamesOverridesWithCommasAndSeveralFields) {
  absl::StatusOr<std::vector<ArmDesign>> arms = ParseExperimentArms(R"({
    "arms": [
      {"name": "plain", "overrides": {}},
      {"name": "fixed+two", "overrides": {"fixed_buffers": true, "qd": 64,
                                          "target": "/dev/a,/dev/b"}},
      {"name": "half", "overrides": {"rate_iops": 0.5e4}}]})");
  ASSERT_TRUE(arms.ok()) << arms.status();
  ASSERT_EQ(arms->size(), 3u);
  EXPECT_EQ((*arms)[0].name, "plain");
  EXPECT_TRUE((*arms)[0].overrides.empty());
  EXPECT_EQ((*arms)[1].OverridesText(),
            "fixed_buffers=true qd=64 target=/dev/a,/dev/b");
  EXPECT_EQ((*arms)[2].OverridesText(), "rate_iops=5000");
}

TEST(ParseExperimentArmsTest, RefusesNamingThePlace) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"[1]", "experiment: not a JSON object"},
      {R"({"arms": [{"name": "a"}]})", "experiment.arms: 1 arms"},
      {R"({"arms": [{"name": "a"}, {"name": "a"}]})", "experiment.arms[1].name"},
      {R"({"arms": [{"name": "a"}, {"name": "b c"}]})", "experiment.arms[1].name"},
      {R"({"arms": [{"name": "a"}, {}]})", "experiment.arms[1].name"},
      {R"({"arms": [{"name": "a"}, {"name": "b", "set": {}}]})",
       "experiment.arms[1].set: unknown"},
      {R"({"arms": [{"name": "a"}, {"name": "b", "overrides": {"qd": [1]}}]})",
       "experiment.arms[1].overrides.qd"},
      {R"({"arms": [{"name": "a"}, {"name": "b"}], "rounds": 3})",
       "experiment.rounds: unknown"},
      {R"({"arms": 3})", "experiment.arms: give a list"},
  };
  for (const auto& [json, where] : cases) {
    absl::StatusOr<std::vector<ArmDesign>> arms = ParseExperimentArms(json);
    ASSERT_FALSE(arms.ok()) << json;
    EXPECT_EQ(arms.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(arms.status().message().find(std::string("--spec_file ") + where),
              std::string::npos)
        << json << " -> " << arms.status().message();
  }
}

}  // namespace
}  // namespace blkperf

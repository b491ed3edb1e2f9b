#include "fleet/workload_json.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "wire/message_json.h"

namespace blkperf::fleet {
namespace {

// A workload with nested messages, repeated fields, enums and strings
// holding JSON's own punctuation.
v1::Workload Sample(int k) {
  v1::Workload w;
  w.set_workload_id("w" + std::to_string(k));
  w.set_run_id("run-1");
  w.set_state(v1::WORKLOAD_STATE_FINISHED);
  w.set_end_reason(k % 2 == 0 ? "quote \" brace } bracket ] backslash \\ {["
                              : "tab\tnewline\n\x01 unicode \xc3\xa9");
  w.mutable_spec()->set_block_size(4096 * (k + 1));
  w.mutable_spec()->mutable_runtime()->set_seconds(k);
  v1::ThreadStats* total = w.mutable_snapshot()->mutable_total();
  total->set_ios(1000 + k);
  total->set_iops(123.5 * k);
  for (int b = 0; b < 3; ++b) {
    v1::HistogramBucket* bucket = total->mutable_histogram()->add_buckets();
    bucket->set_index(400 + b + k);
    bucket->set_count(10 * b + k);
  }
  w.mutable_snapshot()->add_notes("note {with} [brackets]");
  return w;
}

TEST(WorkloadJsonTest, EachWorkloadPrintsAsMessageJsonDoes) {
  std::vector<v1::Workload> workloads;
  for (int k = 0; k < 5; ++k) workloads.push_back(Sample(k));
  workloads.push_back(v1::Workload());  // every field at its default
  std::vector<const v1::Workload*> pointers;
  for (const v1::Workload& w : workloads) pointers.push_back(&w);
  const std::vector<std::string> json = WorkloadsApiJson(pointers);
  ASSERT_EQ(json.size(), workloads.size());
  for (size_t i = 0; i < workloads.size(); ++i) {
    EXPECT_EQ(json[i], MessageJson(workloads[i], JsonLayout::kOneLine)) << i;
  }
}

TEST(WorkloadJsonTest, NoWorkloadsNoText) {
  EXPECT_TRUE(WorkloadsApiJson({}).empty());
}

}  // namespace
}  // namespace blkperf::fleet

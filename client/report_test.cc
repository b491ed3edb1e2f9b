#include "client/report.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(FormatTest, Units) {
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(12345), "12.3k");
  EXPECT_EQ(FormatCount(1234567), "1.23M");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(4096), "4.00 KiB");
  EXPECT_EQ(FormatBytes(1.5 * (1 << 30)), "1.50 GiB");
  EXPECT_EQ(FormatBandwidth(100 << 20), "100.0 MiB/s");
  EXPECT_EQ(FormatLatency(850), "850ns");
  EXPECT_EQ(FormatLatency(45200), "45.2us");
  EXPECT_EQ(FormatLatency(1.2e6), "1.20ms");
  EXPECT_EQ(FormatLatency(2.5e9), "2.50s");
  EXPECT_EQ(StateName(v1::WORKLOAD_STATE_FINISHED), "finished");
  EXPECT_EQ(OpName(v1::OP_RANDRW), "randrw");
  EXPECT_EQ(OpName(v1::OP_UNSPECIFIED), "randread");
  google::protobuf::RepeatedField<int32_t> cpus;
  for (int c : {6, 0, 1, 2, 3, 9, 10}) cpus.Add(c);
  EXPECT_EQ(FormatCpuList(cpus), "0-3,6,9-10");
}

v1::Workload Finished() {
  v1::Workload w;
  w.set_workload_id("w7");
  w.set_state(v1::WORKLOAD_STATE_FINISHED);
  w.mutable_spec()->add_targets()->set_path("/dev/zram0");
  w.mutable_spec()->set_op(v1::OP_RANDREAD);
  w.mutable_spec()->set_block_size(4096);
  w.mutable_spec()->set_queue_depth(32);
  w.mutable_spec()->set_threads(2);
  w.mutable_spec()->add_cpus(0);
  w.mutable_spec()->add_cpus(1);
  v1::Snapshot* s = w.mutable_snapshot();
  s->mutable_elapsed()->set_seconds(10);
  v1::ThreadStats* t = s->mutable_total();
  t->set_ios(2000000);
  t->set_iops(200000);
  t->set_bytes_per_second(200000.0 * 4096);
  t->set_ios_per_call(8);
  t->set_user_cpu_seconds(2);
  t->set_system_cpu_seconds(8);
  v1::LatencyPercentiles* p = t->mutable_latency();
  p->set_count(2000000);
  p->set_p50_ns(25000);
  p->set_p99_ns(45000);
  p->set_p99_9_ns(80000);
  p->set_p99_99_ns(120000);
  p->set_max_ns(1200000);
  p->set_mean_ns(26000);
  for (int i = 0; i < 2; ++i) {
    v1::ThreadStats* th = s->add_threads();
    th->set_thread_index(i);
    th->set_cpu(i);
    th->set_iops(100000);
  }
  s->add_notes("polled: auto fell back to interrupts");
  return w;
}

TEST(FormatReportTest, HasEveryFigure) {
  const std::string report = FormatReport(Finished());
  EXPECT_THAT(report, HasSubstr("workload w7: finished after 10.00s"));
  EXPECT_THAT(report, HasSubstr("randread bs 4096 qd 32 threads 2 cpus 0-1"));
  EXPECT_THAT(report, HasSubstr("IOPS        : 200.0k"));
  EXPECT_THAT(report, HasSubstr("781.2 MiB/s"));
  EXPECT_THAT(report, HasSubstr("IOs/syscall : 8.00"));
  EXPECT_THAT(report, HasSubstr("user 2.00s sys 8.00s (50.0% of a CPU"));
  EXPECT_THAT(report, HasSubstr("p50 25.0us"));
  EXPECT_THAT(report, HasSubstr("p99.9 80.0us"));
  EXPECT_THAT(report, HasSubstr("p99.99 120.0us"));
  EXPECT_THAT(report, HasSubstr("max 1.20ms"));
  EXPECT_THAT(report, HasSubstr("mean 26.0us"));
  EXPECT_THAT(report, HasSubstr("thread 1   cpu 1  : 100.0k IOPS"));
  EXPECT_THAT(report, HasSubstr("errors      : none"));
  EXPECT_THAT(report, HasSubstr("note        : polled: auto fell back"));
}

TEST(FormatReportTest, ShowsErrors) {
  v1::Workload w = Finished();
  w.set_state(v1::WORKLOAD_STATE_FAILED);
  v1::ThreadStats* t = w.mutable_snapshot()->mutable_total();
  t->set_error_total(3);
  v1::ErrorCount* e = t->add_errors();
  e->set_name("EIO");
  e->set_count(3);
  w.mutable_snapshot()->mutable_error()->set_message("EIO at /dev/x offset 0");
  const std::string report = FormatReport(w);
  EXPECT_THAT(report, HasSubstr("failed"));
  EXPECT_THAT(report, HasSubstr("errors      : EIO x3"));
  EXPECT_THAT(report, HasSubstr("first error : EIO at /dev/x offset 0"));
}

TEST(FormatStatusLineTest, UsesTheInterval) {
  v1::WatchWorkloadResponse r;
  *r.mutable_workload() = Finished();
  r.mutable_workload()->set_state(v1::WORKLOAD_STATE_RUNNING);
  r.mutable_interval()->set_iops(150000);
  r.mutable_interval()->mutable_latency()->set_p99_ns(50000);
  const std::string line = FormatStatusLine(r);
  EXPECT_THAT(line, HasSubstr("[w7 running 10.0s] 150.0k IOPS"));
  EXPECT_THAT(line, HasSubstr("p99 50.0us"));
}

}  // namespace
}  // namespace blkperf

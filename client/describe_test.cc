#include "client/describe.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(FormatCpuListTest, Ranges) {
  google::protobuf::RepeatedField<int32_t> cpus;
  for (int c : {6, 0, 1, 2, 3, 9, 10, 3}) cpus.Add(c);
  EXPECT_EQ(FormatCpuList(cpus), "0-3,6,9-10");
  const google::protobuf::RepeatedField<int32_t> none;
  EXPECT_EQ(FormatCpuList(none), "");
}

TEST(FormatTargetInfoTest, ShowsEveryQueueLimit) {
  v1::TargetInfo t;
  t.set_path("/dev/nvme0n1");
  t.set_kind(v1::TARGET_KIND_BLOCK_DEVICE);
  t.set_size_bytes(1ull << 40);
  t.set_logical_block_size(512);
  t.set_physical_block_size(4096);
  t.set_device_name("nvme0n1");
  t.set_can_poll(true);
  v1::QueueLimits* q = t.mutable_limits();
  q->set_logical_block_size(512);
  q->set_physical_block_size(4096);
  q->set_max_sectors_kb(128);
  q->set_max_hw_sectors_kb(2048);
  q->set_max_segments(127);
  q->set_max_segment_size(4294967295u);
  q->set_virt_boundary_mask(4095);
  q->set_chunk_sectors(256);
  q->set_optimal_io_size(131072);
  q->set_io_poll(true);
  q->set_nr_requests(1023);
  q->set_scheduler("none");
  q->set_nomerges(2);
  q->set_rq_affinity(1);
  q->set_write_cache("write back");
  q->set_poll_queues(4);
  const std::string text = FormatTargetInfo(t);
  for (const char* fact :
       {"block device, 1.00TiB", "logical 512, physical 4096",
        "nvme0n1, non-rotational", "logical_block_size 512",
        "physical_block_size 4096", "max_sectors_kb 128",
        "max_hw_sectors_kb 2048", "max_segments 127",
        "max_segment_size 4294967295", "virt_boundary_mask 0xfff",
        "chunk_sectors 256", "optimal_io_size 131072", "nr_requests 1023",
        "io_poll 1", "rotational 0", "scheduler none", "nomerges 2",
        "rq_affinity 1", "write_cache write back", "poll_queues 4",
        "can poll      : yes"}) {
    EXPECT_THAT(text, HasSubstr(fact));
  }
  q->set_poll_queues(-1);
  EXPECT_THAT(FormatTargetInfo(t), HasSubstr("poll_queues n/a"));
}

TEST(FormatTargetInfoTest, FileWithoutDevice) {
  v1::TargetInfo t;
  t.set_path("/tmp/f");
  t.set_kind(v1::TARGET_KIND_REGULAR_FILE);
  t.set_size_bytes(16 << 20);
  const std::string text = FormatTargetInfo(t);
  EXPECT_THAT(text, HasSubstr("regular file, 16.00MiB"));
  EXPECT_THAT(text, HasSubstr("no block device underneath"));
}

TEST(FormatCapabilitiesTest, HasVersionsAndLimits) {
  v1::GetCapabilitiesResponse c;
  c.set_api_version(1);
  c.set_daemon_version("0.1.0");
  c.mutable_io_uring()->set_available(true);
  c.mutable_io_uring()->add_features("NODROP");
  c.add_online_cpus(0);
  c.add_online_cpus(1);
  c.mutable_limits()->set_max_workloads(4);
  c.mutable_limits()->mutable_max_runtime()->set_seconds(86400);
  const std::string text = FormatCapabilities(c);
  EXPECT_THAT(text, HasSubstr("blkperfd 0.1.0, API version 1"));
  EXPECT_THAT(text, HasSubstr("features NODROP"));
  EXPECT_THAT(text, HasSubstr("CPUs online : 0-1"));
  EXPECT_THAT(text, HasSubstr("4 workloads"));
  EXPECT_THAT(text, HasSubstr("runtime 86400s"));
}

}  // namespace
}  // namespace blkperf

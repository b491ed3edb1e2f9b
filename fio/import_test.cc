#include "fio/import.h"

#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Job files from memory, environment from a map.
struct Files {
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> env;

  FioImportOptions Options(bool lenient = false) const {
    FioImportOptions options;
    options.lenient = lenient;
    options.hooks.read = [this](const std::string& path)
        -> absl::StatusOr<std::string> {
      auto it = files.find(path);
      if (it == files.end()) return absl::NotFoundError("cannot open " + path);
      return it->second;
    };
    options.hooks.getenv = [this](const std::string& name)
        -> std::optional<std::string> {
      auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    return options;
  }
  absl::StatusOr<FioImport> Import(const std::string& path,
                                   bool lenient = false) const {
    return ImportFioJob(path, Options(lenient));
  }
};

TEST(ImportFioTest, AcceptanceRandwrite8kDepth7) {
  Files f;
  f.files["/j/a.fio"] = "[job]\nrw=randwrite\nbs=8k\niodepth=7\n";
  absl::StatusOr<FioImport> r = f.Import("/j/a.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.op(), v1::OP_RANDWRITE);
  EXPECT_EQ(r->spec.block_size(), 8192u);
  EXPECT_EQ(r->spec.queue_depth(), 7u);
  // fio's defaults, stated rather than left to blkperf's.
  EXPECT_EQ(r->spec.submit_batch(), 1u);
  EXPECT_EQ(r->spec.complete_batch(), 1u);
  EXPECT_FALSE(r->spec.direct());
  EXPECT_FALSE(r->spec.fixed_buffers());
  EXPECT_EQ(r->spec.latency_mode(), v1::LATENCY_MODE_PER_IO);
  EXPECT_EQ(r->spec.threads(), 1u);
  EXPECT_EQ(r->notes.size(), 3u);  // no ioengine, no runtime, no filename
}

TEST(ImportFioTest, UnsupportedOptionNamesFileLineAndOption) {
  Files f;
  f.files["/j/z.fio"] = "[global]\nrw=read\nzonemode=zbd\n[job]\n";
  absl::StatusOr<FioImport> r = f.Import("/j/z.fio");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("/j/z.fio:3: option 'zonemode'"));
}

TEST(ImportFioTest, GlobalIncludeAndVariables) {
  Files f;
  f.env["DEPTH"] = "16";
  f.files["/j/common.fio"] = "; shared\nioengine=io_uring\ndirect=1\n";
  f.files["/j/main.fio"] =
      "[global]\ninclude common.fio\nbs=4k,64k\nruntime=30s\ntime_based\n"
      "fixedbufs=1\nregisterfiles\n"
      "[reader]\nrw=randrw\nrwmixread=70\niodepth=${DEPTH}\nnumjobs=2\n"
      "cpus_allowed=2-3\ncpus_allowed_policy=split\nrate_iops=1000\n"
      "filename=/dev/nullb0\n";
  absl::StatusOr<FioImport> r = f.Import("/j/main.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  const v1::WorkloadSpec& s = r->spec;
  EXPECT_EQ(s.op(), v1::OP_RANDRW);
  EXPECT_EQ(s.read_percent(), 70u);
  EXPECT_EQ(s.queue_depth(), 16u);
  EXPECT_TRUE(s.direct());
  EXPECT_TRUE(s.fixed_buffers());
  EXPECT_TRUE(s.registered_files());
  EXPECT_EQ(s.runtime().seconds(), 30);
  EXPECT_EQ(s.threads(), 2u);
  EXPECT_THAT(s.cpus(), ElementsAre(2, 3));
  EXPECT_EQ(s.rate_iops(), 2000u);  // fio's rate is per job
  ASSERT_EQ(s.read_bssplit_size(), 1);
  EXPECT_EQ(s.read_bssplit(0).block_size(), 4096u);
  EXPECT_EQ(s.write_bssplit(0).block_size(), 65536u);
  ASSERT_EQ(s.targets_size(), 1);
  EXPECT_EQ(s.targets(0).path(), "/dev/nullb0");
  EXPECT_TRUE(s.targets(0).allow_write());
}

TEST(ImportFioTest, RefusalsNameTheLine) {
  const std::map<std::string, std::string> cases = {
      {"[j]\nrw=rw\n", ":2: option 'rw'"},
      {"[j]\nioengine=libaio\n", ":2: option 'ioengine'"},
      {"[j]\nrandom_distribution=normal:5\n", ":2: option 'random_distribution'"},
      {"[j]\nverify=crc32c\n", ":2: option 'verify'"},
      {"[j]\nruntime=10\n", ":2: option 'runtime'"},
      {"[j]\ncpus_allowed=0-3\n", ":2: option 'cpus_allowed'"},
      {"[j]\nbs=4k-16k\n", ":2: option 'bs'"},
      {"[j]\nwrite_bw_log=x\n", ":2: option 'write_bw_log'"},
      {"[j]\niodepth=${NOPE}\n", ":2: environment variable ${NOPE}"},
      {"rw=read\n", ":1: option before any [section]"},
      {"[a]\ncpus_allowed=0\n[b]\ncpus_allowed=1\ndirect=1\n", ":3: job 'b' differs"},
      {"[a]\n[b]\n", ":1: job 'a' runs beside other jobs"},
  };
  for (const auto& [text, want] : cases) {
    Files f;
    f.files["/j/x.fio"] = text;
    absl::StatusOr<FioImport> r = f.Import("/j/x.fio");
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(want)) << text;
  }
}

TEST(ImportFioTest, SteadyStateOptionsMapOntoTheSpec) {
  Files f;
  f.files["/j/ss.fio"] =
      "[job]\nrw=randread\ntime_based=1\nruntime=600\nss=iops_slope:0.1%\n"
      "ss_dur=60\nss_interval=1s\n";
  absl::StatusOr<FioImport> r = f.Import("/j/ss.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.steady_state().criterion(), "iops_slope:0.1%");
  EXPECT_EQ(r->spec.steady_state().window().seconds(), 60);
  EXPECT_EQ(r->spec.steady_state().mode(), v1::STEADY_STATE_MODE_STOP);
  EXPECT_EQ(r->spec.series_interval().seconds(), 1);
  f.files["/j/none.fio"] = "[job]\nrw=randread\nss_interval=2s\n";
  r = f.Import("/j/none.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->spec.has_steady_state());

  const std::map<std::string, std::string> refused = {
      {"[j]\nss=iops:5%\n", ":2: option 'ss'"},            // no ss_dur
      {"[j]\nss_dur=30\n", ":2: option 'ss_dur'"},         // no ss
      {"[j]\nss=iops:300\nss_dur=30\n", ":2: option 'ss'"},  // absolute
      {"[j]\nss=lat:5%\nss_dur=30\n", ":2: option 'ss'"},
      {"[j]\nsteadystate=p99:5%\nss_dur=30\n", ":2: option 'steadystate'"},
      {"[j]\nss=bw_slope:1%\nss_dur=30\nss_interval=2\n",
       ":4: option 'ss_interval'"},
      {"[j]\nss=iops:5%\nss_dur=30\nss_ramp=10\n", ":4: option 'ss_ramp'"},
  };
  for (const auto& [text, want] : refused) {
    f.files["/j/x.fio"] = text;
    r = f.Import("/j/x.fio");
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(want)) << text;
  }
}

TEST(ImportFioTest, LenientDropsOnlyOutputOptionsAndListsThem) {
  Files f;
  // A per-I/O log (no log_avg_msec) blkperf cannot write: dropped.
  f.files["/j/l.fio"] =
      "[j]\nrw=read\nwrite_bw_log=bw\ndescription=x\nlog_hist_coarseness=2\n";
  absl::StatusOr<FioImport> r = f.Import("/j/l.fio", /*lenient=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->dropped, ElementsAre("/j/l.fio:4: option 'description'",
                                      "/j/l.fio:5: option 'log_hist_coarseness'",
                                      "/j/l.fio:3: option 'write_bw_log'"));
  EXPECT_FALSE(r->logs.AnyLog());
  f.files["/j/l.fio"] = "[j]\nrw=read\nzonemode=zbd\n";
  EXPECT_THAT(f.Import("/j/l.fio", true).status().message(),
              HasSubstr(":3: option 'zonemode'"));
}

// fio's log options with their windows are the job's logs (the running
// process writes them); a bare write_*_log takes the job's name, as fio's.
TEST(ImportFioTest, LogOptionsWithWindowsAreKept) {
  Files f;
  f.files["/j/l.fio"] =
      "[global]\nlog_avg_msec=250\n[job1]\nrw=read\nwrite_bw_log=bw\n"
      "write_iops_log\nwrite_lat_log=lat\nwrite_hist_log=h\n"
      "log_hist_msec=500\n";
  absl::StatusOr<FioImport> r = f.Import("/j/l.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->logs.bw_prefix, "bw");
  EXPECT_EQ(r->logs.iops_prefix, "job1");
  EXPECT_EQ(r->logs.lat_prefix, "lat");
  EXPECT_EQ(r->logs.hist_prefix, "h");
  EXPECT_EQ(r->logs.log_avg_msec, 250);
  EXPECT_EQ(r->logs.log_hist_msec, 500);
  EXPECT_TRUE(r->dropped.empty());
  // A histogram log without its window: refused naming its line.
  f.files["/j/l.fio"] = "[j]\nrw=read\nwrite_hist_log=h\n";
  EXPECT_THAT(f.Import("/j/l.fio").status().message(),
              HasSubstr(":3: option 'write_hist_log'"));
  f.files["/j/l.fio"] = "[j]\nrw=read\nlog_avg_msec=-5\n";
  EXPECT_THAT(f.Import("/j/l.fio").status().message(),
              HasSubstr(":3: option 'log_avg_msec'"));
}

TEST(ImportFioTest, GroupsFromSeveralJobsAndSizeCounts) {
  Files f;
  f.files["/j/g.fio"] =
      "[global]\nfilename=/nonexistent-blkperf-test/f\nsize=1m\nbs=4k\n"
      "runtime=5\ntime_based\n"
      "[hot]\nrw=randread\ncpus_allowed=0\n"
      "[cold]\nrw=randwrite\ncpus_allowed=1\nbs=8k\n";
  absl::StatusOr<FioImport> r = f.Import("/j/g.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->spec.groups_size(), 2) << r->spec.DebugString();
  EXPECT_EQ(r->spec.groups(0).name(), "hot");
  EXPECT_EQ(r->spec.groups(1).op(), v1::OP_RANDWRITE);
  EXPECT_EQ(r->spec.groups(1).block_size(), 8192u);
  EXPECT_THAT(r->spec.groups(1).cpus(), ElementsAre(1));
  EXPECT_EQ(r->spec.cpus_size(), 0);
  EXPECT_EQ(r->spec.targets(0).create_size(), 1u << 20);
  EXPECT_EQ(r->spec.io_count(), 0u);
  // size without time_based: a count of I/Os over the job's clones.
  f.files["/j/g.fio"] =
      "[global]\nfilename=/nonexistent-blkperf-test/f\nsize=1m\nbs=4k\n"
      "[one]\nrw=randread\nnumjobs=2\n";
  r = f.Import("/j/g.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.io_count(), 2u * 256);
}

TEST(ImportFioTest, PercentileListIsKept) {
  Files f;
  f.files["/j/p.fio"] = "[j]\nrw=read\npercentile_list=99.9:25:75\n";
  absl::StatusOr<FioImport> r = f.Import("/j/p.fio");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->percentiles, ElementsAre(25, 75, 99.9));
}

}  // namespace
}  // namespace blkperf

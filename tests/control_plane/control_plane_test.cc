// End to end: `blkperfd serve` (//daemon:blkperfd) on 127.0.0.1:0
// and the `blkperf` client binary, on temporary files under $TEST_TMPDIR.
// Results are read back through the client's --json output.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "model/workload_spec.h"
#include "proto/blkperf.pb.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

std::string Env(const char* name, const char* fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

std::string Runfile(const std::string& path) {
  return absl::StrCat(Env("TEST_SRCDIR"), "/", Env("TEST_WORKSPACE", "blkperf"),
                      "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A child process with stdout and stderr captured in files.
class Child {
 public:
  static std::unique_ptr<Child> Spawn(const std::vector<std::string>& argv,
                                      const std::string& dir) {
    static int counter = 0;
    auto child = std::unique_ptr<Child>(new Child());
    child->out_ = absl::StrCat(dir, "/child", ++counter, ".out");
    child->err_ = absl::StrCat(dir, "/child", counter, ".err");
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      const int out =
          open(child->out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err =
          open(child->err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    child->pid_ = pid;
    return child;
  }

  ~Child() {
    if (!exited_) {
      kill(pid_, SIGKILL);
      Wait(absl::Seconds(5));
    }
  }

  // Exit code, 128 + signal when killed, -1 on timeout.
  int Wait(absl::Duration timeout) {
    if (exited_) return code_;
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exited_ = true;
        code_ =
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return code_;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return -1;
  }

  void Signal(int signal_number) { kill(pid_, signal_number); }
  std::string Out() const { return ReadFile(out_); }
  std::string Err() const { return ReadFile(err_); }

 private:
  Child() = default;
  pid_t pid_ = -1;
  std::string out_, err_;
  bool exited_ = false;
  int code_ = -1;
};

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

template <typename Message>
Message FromJson(const std::string& json) {
  Message message;
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.ToString() << " in: " << json;
  return message;
}

std::vector<v1::WatchWorkloadResponse> WatchLines(const std::string& ndjson) {
  std::vector<v1::WatchWorkloadResponse> messages;
  for (absl::string_view line :
       absl::StrSplit(ndjson, '\n', absl::SkipEmpty())) {
    messages.push_back(FromJson<v1::WatchWorkloadResponse>(std::string(line)));
  }
  return messages;
}

bool Terminal(v1::WorkloadState state) {
  return state == v1::WORKLOAD_STATE_FINISHED ||
         state == v1::WORKLOAD_STATE_STOPPED ||
         state == v1::WORKLOAD_STATE_FAILED;
}

// One daemon for a test, on an ephemeral port, allowed to read everything
// under the test's temp dir and to write only below rw/.
class Daemon {
 public:
  explicit Daemon(const std::string& dir) : dir_(dir) {
    const std::string port_file = dir + "/port";
    unlink(port_file.c_str());
    child_ = Child::Spawn(
        {Runfile("daemon/blkperfd"), "serve", "--listen=127.0.0.1:0",
         "--metrics_listen=127.0.0.1:0",
         "--port_file=" + port_file, "--data_dir=" + dir + "/data",
         "--allow_read_paths=" + dir + "/",
         "--allow_write_paths=" + dir + "/rw/", "--max_queue_depth=1024",
         "--shutdown_timeout=3s"},
        dir);
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (absl::Now() < deadline) {
      int port = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(port_file)),
                           &port) &&
          port > 0) {
        server_ = absl::StrCat("127.0.0.1:", port);
        return;
      }
      if (child_->Wait(absl::Milliseconds(20)) >= 0) break;
    }
    ADD_FAILURE() << "daemon did not start: " << child_->Err();
  }

  const std::string& server() const { return server_; }
  Child& child() { return *child_; }

 private:
  std::string dir_;
  std::string server_;
  std::unique_ptr<Child> child_;
};

class ControlPlaneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        Env("TEST_TMPDIR", "/tmp"), "/cp_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    mkdir(dir_.c_str(), 0755);
    mkdir((dir_ + "/rw").c_str(), 0755);
    for (const char* name : {"/a", "/b", "/rw/c"}) {
      std::ofstream file(dir_ + name, std::ios::binary | std::ios::trunc);
      const std::string block(1 << 20, '\0');
      for (int i = 0; i < 16; ++i) file << block;  // 16 MiB each
    }
    daemon_ = std::make_unique<Daemon>(dir_);
    ASSERT_FALSE(daemon_->server().empty());
    v1::GetCapabilitiesResponse caps =
        FromJson<v1::GetCapabilitiesResponse>(Client({"caps", "--api_json"}).out);
    ASSERT_EQ(caps.api_version(), 1u);
    if (!caps.io_uring().available()) {
      GTEST_SKIP() << "io_uring is unavailable here: "
                   << caps.io_uring().unavailable_reason();
    }
    cpus_ = caps.online_cpus_size();
  }

  std::vector<std::string> Argv(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {Runfile("client/blkperf"),
                                     "--server=" + daemon_->server()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  Result Client(const std::vector<std::string>& args,
                absl::Duration timeout = absl::Seconds(60)) {
    std::unique_ptr<Child> child = Child::Spawn(Argv(args), dir_);
    Result result;
    result.code = child->Wait(timeout);
    result.out = child->Out();
    result.err = child->Err();
    return result;
  }

  std::unique_ptr<Child> Background(const std::vector<std::string>& args) {
    return Child::Spawn(Argv(args), dir_);
  }

  // A read workload on `file` (relative to the temp dir); returns its id.
  std::string Start(const std::string& file, const std::string& runtime,
                    const std::string& cpus = "0") {
    Result r =
        Client({"start", "--target=" + dir_ + file, "--runtime=" + runtime,
                "--cpus=" + cpus, "--qd=8", "--direct=false"});
    EXPECT_EQ(r.code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  v1::Workload Status(const std::string& id) {
    Result r = Client({"status", id, "--api_json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return FromJson<v1::Workload>(r.out);
  }

  std::string dir_;
  int cpus_ = 1;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(ControlPlaneTest, HealthIsServing) {
  Result r = Client({"health"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "SERVING\n");
}

TEST_F(ControlPlaneTest, RunPrintsTheFinalReport) {
  Result r = Client({"run", "--target=" + dir_ + "/a", "--runtime=1s", "--qd=8",
                     "--direct=false", "--interval=200ms"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("started workload w1"));
  // Status lines: daemon/report's, with the id and the strategy in force.
  EXPECT_THAT(r.err, HasSubstr("w1 [finished"));
  EXPECT_THAT(r.err, HasSubstr("split=none"));
  // The report is daemon/report's, the same as `blkperfd run` prints.
  for (const char* figure :
       {"IOPS=", "BW=", "IOs per syscall", "cpu: usr=", "io_uring workers=",
        "lat: min=", "mean=", "max=", "p50=", "p90=", "p99=", "p99.9=",
        "p99.99=", "split: none  pieces per I/O: 1.00", "thread 0 cpu 0:",
        "errors: none"}) {
    EXPECT_THAT(r.out, HasSubstr(figure));
  }
  EXPECT_THAT(r.out, ::testing::StartsWith("workload w1\nblkperf: randread"));
  EXPECT_THAT(r.out, HasSubstr("target: " + dir_ + "/a (regular file"));
  EXPECT_THAT(r.out, HasSubstr("state: finished"));
}

TEST_F(ControlPlaneTest, WorkloadShapesOverGrpc) {
  // Open loop with a size mix and zipf offsets, through the client.
  Result r = Client({"run", "--target=" + dir_ + "/a", "--runtime=1s",
                     "--direct=false", "--rate_iops=2000", "--arrivals=poisson",
                     "--bssplit=4k/50:8k/50", "--distribution=zipf:1.2",
                     "--quiet", "--report_json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rate_iops=2000 (poisson)"));
  EXPECT_THAT(r.out, HasSubstr("distribution=zipf:1.2"));
  EXPECT_THAT(r.out, HasSubstr("bssplit=4k/50:8k/50"));
  const v1::Workload w = Status("w1");
  const v1::ThreadStats& total = w.snapshot().total();
  ASSERT_GT(total.ios(), 0u);
  EXPECT_EQ(total.intended_latency().count(), total.ios());
  EXPECT_TRUE(total.has_intended_histogram());
  EXPECT_NEAR(total.iops(), 2000, 2000 * 0.05);
  EXPECT_EQ(w.spec().distribution(), "zipf:1.2");
  EXPECT_EQ(w.spec().rate_iops(), 2000u);
  ASSERT_EQ(w.spec().read_bssplit_size(), 2);

  // A short SLO search: the client prints the curve and the answer, the
  // API carries them.
  Result slo = Client({"run", "--target=" + dir_ + "/a", "--direct=false",
                       "--slo=p99<1s", "--slo_precision=0.5",
                       "--slo_step=200ms", "--slo_settle=0s", "--quiet"});
  ASSERT_EQ(slo.code, 0) << slo.err;
  EXPECT_THAT(slo.out, HasSubstr("slo search p99<1s"));
  EXPECT_THAT(slo.out, HasSubstr("step 0 closed loop: IOPS="));
  EXPECT_THAT(slo.out, HasSubstr("answer: "));
  const v1::Workload searched = Status("w2");
  EXPECT_EQ(searched.state(), v1::WORKLOAD_STATE_FINISHED);
  ASSERT_TRUE(searched.snapshot().has_slo());
  EXPECT_TRUE(searched.snapshot().slo().done());
  // The closed loop, one bisection, and the re-tests of the final bracket
  // (at most SloSteps(0.5) steps).
  EXPECT_GE(searched.snapshot().slo().steps_size(), 2);
  EXPECT_LE(searched.snapshot().slo().steps_size(), SloSteps(0.5));
  EXPECT_GT(searched.snapshot().slo().best_iops(), 0);
}

TEST_F(ControlPlaneTest, TwoWatchersAgreeWithTheFinalResult) {
  const std::string id = Start("/a", "2s");
  ASSERT_EQ(id, "w1");
  auto first = Background({"watch", id, "--api_json", "--interval=200ms"});
  auto second = Background({"watch", id, "--api_json", "--interval=300ms"});
  ASSERT_EQ(first->Wait(absl::Seconds(30)), 0) << first->Err();
  ASSERT_EQ(second->Wait(absl::Seconds(30)), 0) << second->Err();
  const v1::Workload final_result = Status(id);
  ASSERT_EQ(final_result.state(), v1::WORKLOAD_STATE_FINISHED);
  const v1::ThreadStats& total = final_result.snapshot().total();
  ASSERT_GT(total.ios(), 0u);

  for (const Child* watcher : {first.get(), second.get()}) {
    const std::vector<v1::WatchWorkloadResponse> messages =
        WatchLines(watcher->Out());
    ASSERT_GE(messages.size(), 3u);
    uint64_t previous = 0, interval_sum = 0;
    for (const v1::WatchWorkloadResponse& m : messages) {
      EXPECT_EQ(m.api_version(), 1u);
      const uint64_t ios = m.workload().snapshot().total().ios();
      EXPECT_GE(ios, previous);  // counters only grow
      previous = ios;
      interval_sum += m.interval().ios();
    }
    const v1::Workload& last = messages.back().workload();
    EXPECT_TRUE(Terminal(last.state()));
    // The last watched snapshot is the final result.
    EXPECT_EQ(last.snapshot().total().ios(), total.ios());
    EXPECT_EQ(last.snapshot().total().bytes(), total.bytes());
    EXPECT_EQ(last.snapshot().total().histogram().count(),
              total.histogram().count());
    EXPECT_EQ(last.snapshot().total().latency().p99_ns(),
              total.latency().p99_ns());
    // Interval figures add up to the total.
    EXPECT_EQ(interval_sum, total.ios());
  }
  // The result is self-consistent.
  uint64_t bucket_sum = 0;
  for (const v1::HistogramBucket& b : total.histogram().buckets()) {
    bucket_sum += b.count();
  }
  EXPECT_EQ(bucket_sum, total.histogram().count());
  EXPECT_EQ(total.histogram().count(), total.ios());
  EXPECT_EQ(total.bytes(), total.ios() * 4096);
  const v1::LatencyPercentiles& p = total.latency();
  EXPECT_LE(p.p50_ns(), p.p90_ns());
  EXPECT_LE(p.p90_ns(), p.p99_ns());
  EXPECT_LE(p.p99_ns(), p.p99_9_ns());
  EXPECT_LE(p.p99_9_ns(), p.p99_99_ns());
  EXPECT_LE(p.p99_99_ns(), p.max_ns());
  const double elapsed = final_result.snapshot().elapsed().seconds() +
                         final_result.snapshot().elapsed().nanos() / 1e9;
  EXPECT_NEAR(total.iops(), total.ios() / elapsed, total.iops() * 0.01);
  EXPECT_TRUE(final_result.has_end_time());
}

TEST_F(ControlPlaneTest, StopEndsARunningWorkload) {
  const std::string id = Start("/a", "60s");
  absl::SleepFor(absl::Milliseconds(500));
  const absl::Time begin = absl::Now();
  Result r = Client({"stop", id});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(absl::Now() - begin, absl::Seconds(10));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("workload ", id, "\n")));
  EXPECT_THAT(r.out, HasSubstr("state: stopped"));
  const v1::Workload w = Status(id);
  EXPECT_EQ(w.state(), v1::WORKLOAD_STATE_STOPPED);
  EXPECT_LT(w.snapshot().elapsed().seconds(), 30);
  EXPECT_GT(w.snapshot().total().ios(), 0u);
}

TEST_F(ControlPlaneTest, ResultOutlivesTheStartingClient) {
  auto run = Background({"run", "--target=" + dir_ + "/a", "--runtime=2s",
                         "--qd=8", "--direct=false"});
  std::string id;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (id.empty() && absl::Now() < deadline) {
    const std::string err = run->Err();
    const size_t at = err.find("started workload ");
    if (at != std::string::npos && err.find('\n', at) != std::string::npos) {
      id = err.substr(at + 17, err.find(' ', at + 17) - (at + 17));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_FALSE(id.empty()) << run->Err();
  run->Signal(SIGKILL);
  EXPECT_EQ(run->Wait(absl::Seconds(5)), 128 + SIGKILL);

  // Still running without its client, then finished and kept.
  EXPECT_FALSE(Terminal(Status(id).state()));
  Result watch = Client({"watch", id, "--quiet"});
  ASSERT_EQ(watch.code, 0) << watch.err;
  const v1::Workload w = Status(id);
  EXPECT_EQ(w.state(), v1::WORKLOAD_STATE_FINISHED);
  EXPECT_GT(w.snapshot().total().ios(), 0u);
  Result list = Client({"list"});
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("finished"));
}

TEST_F(ControlPlaneTest, BadSpecsAreInvalidArgumentNamingTheField) {
  const std::string target = "--target=" + dir_ + "/a";
  const std::string spec_file = dir_ + "/bad_op.json";
  std::ofstream(spec_file) << R"({"targets": [{"path": ")" << dir_
                           << R"(/a"}], "op": 42})";
  const std::string relative_file = dir_ + "/relative.json";
  std::ofstream(relative_file) << R"({"targets": [{"path": "a"}]})";
  // The API's A/B schedule comes from a spec file (--ab is an experiment's
  // shorthand: AbFlagRunsTheSplitExperiment).
  const auto ab_file = [&](const std::string& name, const std::string& json) {
    std::ofstream(dir_ + "/" + name) << json;
    return "--spec_file=" + dir_ + "/" + name;
  };
  struct Case {
    std::vector<std::string> flags;
    const char* field;
  } cases[] = {
      {{target, "--qd=0"}, "queue_depth"},
      {{target, "--bs=0"}, "block_size"},
      {{target, "--bs=1000"}, "block_size"},
      {{target, "--read_percent=101"}, "read_percent"},
      {{target, "--runtime=-1s"}, "runtime"},
      {{target, "--runtime=0s"}, "runtime"},
      {{target, "--ramp=-2s"}, "ramp_time"},
      {{target, "--cpus=4096"}, "cpus[0]"},
      {{target, "--cpus=0", "--threads=2"}, "threads"},
      {{target, "--qd=4", "--submit_batch=8"}, "submit_batch"},
      {{target, "--split=sideways"}, "split"},
      {{target, "--split=fixed:1000"}, "split"},
      {{target, ab_file("ab1.json", R"({"ab_strategies": ["none", "bogus"]})")},
       "spec.ab_strategies[1]"},
      {{target,
        ab_file("ab2.json", R"({"ab_strategies": ["fixed:1000", "none"]})")},
       "spec.ab_strategies[0]"},
      {{target, ab_file("ab3.json", R"({"ab_strategies": ["none"]})")},
       "ab_strategies"},
      {{target, ab_file("ab4.json", R"({"ab_strategies": ["none", "limits"],
                                        "ab_slice": "0.001s"})")},
       "ab_slice"},
      {{target, ab_file("ab5.json", R"({"ab_strategies": ["none", "limits"],
                                        "ab_slice": "6s"})")},
       "ab_slice"},
      {{target, "--sqpoll_cpu=-5"}, "sqpoll_cpu"},
      {{"--target=" + dir_ + "/missing"}, "targets[0].path"},
      {{target + "," + dir_ + "/a"}, "targets[1].path"},
      {{"--spec_file=" + relative_file}, "spec.targets[0].path"},
      {{"--spec_file=" + spec_file}, "spec.op"},
      {{target, "--distribution=zipf:0"}, "spec.distribution"},
      {{target, "--op=read", "--distribution=pareto:0.2"}, "distribution"},
      {{target, "--op=read", "--random_percent=50"}, "random_percent"},
      {{target, "--rate_iops=100", "--rate_bw=1m"}, "rate_bw"},
      {{target, "--bssplit=4k/50:1000/50"}, "read_bssplit[1]"},
      {{target, "--fsync=4"}, "fsync_every"},
      {{target, "--groups=op=randread cpus=4095"}, "groups[0].cpus[0]"},
      {{target, "--slo=p99>1ms"}, "spec.slo.objective"},
      {{target, "--slo=p99<1ms", "--io_count=10"}, "io_count"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"start"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    Result r = Client(args);
    const std::string what = absl::StrJoin(c.flags, " ");
    EXPECT_EQ(r.code, 1) << what;
    EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT")) << what;
    EXPECT_THAT(r.err, HasSubstr(c.field)) << what;
  }
  // Nothing was started.
  EXPECT_EQ(Client({"list"}).out, "no workloads\n");
}

TEST_F(ControlPlaneTest, ConflictsLimitsAndPermissions) {
  const std::string id = Start("/a", "60s", "0");
  // Same CPU, other target.
  Result cpu = Client(
      {"start", "--target=" + dir_ + "/b", "--cpus=0", "--direct=false"});
  EXPECT_EQ(cpu.code, 1);
  EXPECT_THAT(cpu.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(cpu.err, HasSubstr("CPU 0"));
  EXPECT_THAT(cpu.err, HasSubstr(id));
  if (cpus_ > 1) {
    // Same target, other CPU.
    Result target = Client(
        {"start", "--target=" + dir_ + "/a", "--cpus=1", "--direct=false"});
    EXPECT_EQ(target.code, 1);
    EXPECT_THAT(target.err, HasSubstr("FAILED_PRECONDITION"));
    EXPECT_THAT(target.err, HasSubstr(dir_ + "/a"));
  }
  Result deep = Client({"start", "--target=" + dir_ + "/b", "--cpus=1",
                        "--qd=2048", "--direct=false"});
  EXPECT_EQ(deep.code, 1);
  EXPECT_THAT(deep.err, HasSubstr("RESOURCE_EXHAUSTED"));
  EXPECT_THAT(deep.err, HasSubstr("--max_queue_depth=1024"));
  // Writing outside rw/ and reading outside the temp dir.
  Result write = Client({"start", "--target=" + dir_ + "/b", "--cpus=1",
                         "--op=randwrite", "--allow_write", "--direct=false"});
  EXPECT_EQ(write.code, 1);
  EXPECT_THAT(write.err, HasSubstr("PERMISSION_DENIED"));
  EXPECT_THAT(write.err, HasSubstr(dir_ + "/b"));
  EXPECT_THAT(write.err, HasSubstr("--allow_write_paths"));
  Result read = Client({"probe", "/etc/hostname"});
  EXPECT_EQ(read.code, 1);
  EXPECT_THAT(read.err, HasSubstr("PERMISSION_DENIED"));
  EXPECT_THAT(read.err, HasSubstr("/etc/hostname"));
  // Unknown ids.
  Result unknown = Client({"status", "w999"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("NOT_FOUND"));
  // The split strategy switches while it runs.
  Result split = Client({"split", id, "fixed:64k"});
  EXPECT_EQ(split.code, 0) << split.err;
  EXPECT_THAT(split.out, HasSubstr("fixed:65536"));
  EXPECT_EQ(Status(id).split(), "fixed:65536");
  ASSERT_EQ(Client({"stop", id}).code, 0);
  // A write inside rw/ is allowed, and the CPU is free again.
  Result ok =
      Client({"run", "--target=" + dir_ + "/rw/c", "--cpus=0", "--op=randwrite",
              "--allow_write", "--runtime=500ms", "--direct=false", "--quiet"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("finished"));
}

// The phases of `w` add up exactly to its totals.
void ExpectPhasesAddUp(const v1::Workload& w) {
  const v1::Snapshot& s = w.snapshot();
  uint64_t ios = 0, bytes = 0, read_ios = 0, sqes = 0, enter_calls = 0;
  uint64_t latencies = 0, errors = 0;
  for (const v1::Phase& p : s.phases()) {
    ios += p.total().ios();
    bytes += p.total().bytes();
    read_ios += p.total().read_ios();
    sqes += p.total().sqes();
    enter_calls += p.total().enter_calls();
    latencies += p.total().histogram().count();
    errors += p.total().error_total();
  }
  EXPECT_EQ(ios, s.total().ios());
  EXPECT_EQ(bytes, s.total().bytes());
  EXPECT_EQ(read_ios, s.total().read_ios());
  EXPECT_EQ(sqes, s.total().sqes());
  EXPECT_EQ(enter_calls, s.total().enter_calls());
  EXPECT_EQ(latencies, s.total().histogram().count());
  EXPECT_EQ(errors, s.total().error_total());
  for (int i = 1; i < s.phases_size(); ++i) {
    EXPECT_EQ(s.phases(i).index(), static_cast<uint32_t>(i));
    EXPECT_EQ(s.phases(i).start().seconds(), s.phases(i - 1).end().seconds());
    EXPECT_EQ(s.phases(i).start().nanos(), s.phases(i - 1).end().nanos());
  }
}

TEST_F(ControlPlaneTest, AbRunAlternatesPhases) {
  // The API's A/B schedule (a spec file's ab_strategies; --ab is an
  // experiment: AbFlagRunsTheSplitExperiment).
  const std::string ab = dir_ + "/ab.json";
  std::ofstream(ab) << R"({"ab_strategies": ["none", "fixed:64k"],
                           "ab_slice": "0.4s"})";
  Result r = Client({"run", "--target=" + dir_ + "/a", "--runtime=2s",
                     "--bs=128k", "--qd=4", "--direct=false",
                     "--spec_file=" + ab, "--api_json",
                     "--phase_histograms"});
  ASSERT_EQ(r.code, 0) << r.err;
  const v1::Workload w = FromJson<v1::Workload>(r.out);
  ASSERT_EQ(w.state(), v1::WORKLOAD_STATE_FINISHED);
  EXPECT_THAT(w.spec().ab_strategies(),
              ::testing::ElementsAre("none", "fixed:65536"));
  EXPECT_EQ(w.spec().ab_slice().nanos(), 400000000);
  const v1::Snapshot& s = w.snapshot();
  // A B A B A over 2 s in 400 ms slices.
  ASSERT_GE(s.phases_size(), 4);
  for (int i = 0; i < s.phases_size(); ++i) {
    const v1::Phase& p = s.phases(i);
    EXPECT_EQ(p.strategy(), i % 2 == 0 ? "none" : "fixed:65536") << i;
    EXPECT_GT(p.total().ios(), 0u) << i;
    // 128 KiB in 64 KiB pieces: two SQEs per I/O (a few I/Os that straddle
    // the switch were cut by the previous strategy).
    if (i % 2 == 0) {
      EXPECT_LT(p.pieces_per_io(), 1.1) << i;
    } else {
      EXPECT_GT(p.pieces_per_io(), 1.9) << i;
    }
  }
  ExpectPhasesAddUp(w);
  ASSERT_EQ(s.ab_size(), 2);
  EXPECT_EQ(s.ab(0).strategy(), "none");
  EXPECT_EQ(s.ab(1).strategy(), "fixed:65536");
  EXPECT_GE(s.ab(0).slices(), 2u);
  EXPECT_GE(s.ab(1).slices(), 2u);
  EXPECT_GT(s.ab(0).median_iops(), 0);
  EXPECT_DOUBLE_EQ(s.ab(0).ratio_to_first(), 1.0);
  EXPECT_NEAR(s.ab(1).ratio_to_first(),
              s.ab(1).median_iops() / s.ab(0).median_iops(), 1e-9);

  // An A/B workload switches on its own schedule only.
  const std::string id = w.workload_id();
  // The text report shows the phases and the A/B section.
  Result text = Client({"status", id});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("ab=none,fixed:65536 ab_slice=400ms"));
  // The format only: when a switch lands is the engine's and the fleet
  // test's to bound (workload_test, stall_test, fleet_e2e_test). CI twice
  // saw this phase end at 0.43s on a loaded host.
  EXPECT_THAT(text.out,
              ::testing::ContainsRegex("phase 0 none 0\\.00s-0\\.4[0-9]s"));
  EXPECT_THAT(text.out, HasSubstr("phase 1 fixed:65536"));
  EXPECT_THAT(text.out, HasSubstr("A/B none: median IOPS="));
  EXPECT_THAT(text.out, HasSubstr("A/B fixed:65536: median IOPS="));
  EXPECT_THAT(text.out, HasSubstr("ratio to none"));
  // The engine's JSON report, as `blkperfd run --json` prints it.
  Result json = Client({"status", id, "--report_json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"ab\":[{\"strategy\":\"none\""));
  EXPECT_THAT(json.out, HasSubstr("\"phases\":[{\"index\":0"));
}

TEST_F(ControlPlaneTest, SplitMidRunMakesASecondPhase) {
  Result started = Client({"start", "--target=" + dir_ + "/a", "--runtime=3s",
                           "--cpus=0", "--bs=128k", "--qd=8",
                           "--direct=false"});
  ASSERT_EQ(started.code, 0) << started.err;
  const std::string id(absl::StripAsciiWhitespace(started.out));
  auto watcher = Background({"watch", id, "--interval=200ms"});
  absl::SleepFor(absl::Milliseconds(1200));
  Result split = Client({"split", id, "fixed:64k"});
  ASSERT_EQ(split.code, 0) << split.err;
  EXPECT_EQ(split.out, id + ": split fixed:65536\n");
  // Invalid strategies are INVALID_ARGUMENT naming split, and change
  // nothing.
  for (const char* bad : {"fixed:1000", "bogus", "fixed:", "limits:4k"}) {
    Result r = Client({"split", id, bad});
    EXPECT_EQ(r.code, 1) << bad;
    EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT")) << bad;
    EXPECT_THAT(r.err, HasSubstr("split \"" + std::string(bad) + "\""))
        << bad;
  }
  ASSERT_EQ(watcher->Wait(absl::Seconds(30)), 0) << watcher->Err();
  // The live lines show the strategy in force, before and after.
  EXPECT_THAT(watcher->Err(), HasSubstr(id + " [running"));
  EXPECT_THAT(watcher->Err(), HasSubstr("split=none"));
  EXPECT_THAT(watcher->Err(), HasSubstr("split=fixed:65536"));
  EXPECT_THAT(watcher->Out(), HasSubstr("phase 1 fixed:65536"));

  Result status = Client({"status", id, "--api_json", "--phase_histograms"});
  ASSERT_EQ(status.code, 0) << status.err;
  const v1::Workload w = FromJson<v1::Workload>(status.out);
  ASSERT_EQ(w.state(), v1::WORKLOAD_STATE_FINISHED);
  EXPECT_EQ(w.split(), "fixed:65536");
  EXPECT_EQ(w.snapshot().split_strategy(), "fixed:65536");
  const v1::Snapshot& s = w.snapshot();
  ASSERT_EQ(s.phases_size(), 2);
  EXPECT_EQ(s.phases(0).strategy(), "none");
  EXPECT_EQ(s.phases(1).strategy(), "fixed:65536");
  EXPECT_GT(s.phases(0).total().ios(), 0u);
  EXPECT_GT(s.phases(1).total().ios(), 0u);
  EXPECT_LT(s.phases(0).pieces_per_io(), 1.1);
  EXPECT_GT(s.phases(1).pieces_per_io(), 1.9);
  EXPECT_GT(s.phases(0).total().histogram().count(), 0u);
  ExpectPhasesAddUp(w);
  // The second phase starts when the split came, about 1.2 s in.
  const double switched = s.phases(1).start().seconds() +
                          s.phases(1).start().nanos() / 1e9;
  EXPECT_GT(switched, 0.5);
  EXPECT_LT(switched, 2.9);
  // The result carries the probed target with its (file's disk's) limits.
  ASSERT_EQ(w.targets_size(), 1);
  EXPECT_EQ(w.targets(0).path(), dir_ + "/a");
  EXPECT_EQ(w.targets(0).size_bytes(), 16u << 20);
  // Once ended, the strategy can no longer change.
  Result late = Client({"split", id, "limits"});
  EXPECT_EQ(late.code, 1);
  EXPECT_THAT(late.err, HasSubstr("FAILED_PRECONDITION"));
}

// `blkperf run --ab=A,B` is `--vary=split=A,B`: the experiment (live split
// arms in slices of --round, intervals and verdicts); `start` refuses it,
// and --ab_slice is --round's old name.
TEST_F(ControlPlaneTest, AbFlagRunsTheSplitExperiment) {
  const std::string target = "--target=" + dir_ + "/a";
  Result r = Client({"run", target, "--bs=128k", "--qd=4", "--direct=false",
                     "--ab=none,fixed:64k", "--rounds=3", "--ab_slice=200ms",
                     "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"experiment\":{"));
  EXPECT_THAT(r.out, HasSubstr("\"field\":\"split\""));
  EXPECT_THAT(r.out, HasSubstr("\"live\":true"));
  EXPECT_THAT(r.out, HasSubstr("\"name\":\"split=none\""));
  EXPECT_THAT(r.out, HasSubstr("\"name\":\"split=fixed:64k\""));
  EXPECT_THAT(r.out, HasSubstr("\"round_seconds\":0.2"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "\"verdict\":\"(faster|slower|equivalent|"
                         "inconclusive)\""));
  // The same text report as --vary=split=none,fixed:64k.
  Result text = Client({"run", target, "--bs=128k", "--qd=4",
                        "--direct=false", "--ab=none,fixed:64k", "--rounds=2",
                        "--round=200ms"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out,
              HasSubstr("experiment: split A=none (baseline) B=fixed:64k"));
  EXPECT_THAT(text.out, HasSubstr("B split=fixed:64k vs A split=none: "));
  EXPECT_THAT(text.out, HasSubstr("95% interval"));
  // Refusals name both flags and exit 2.
  struct Refusal {
    std::vector<std::string> args;
    std::vector<const char*> words;
  } refusals[] = {
      {{"run", target, "--ab=none,limits", "--runtime=2s"},
       {"--runtime", "--ab"}},
      {{"run", target, "--ab=none,limits", "--vary=qd=1,2"}, {"--ab", "--vary"}},
      {{"run", target, "--ab=none,limits", "--ab_slice=1s", "--round=1s"},
       {"--ab_slice", "--round"}},
      {{"run", target, "--ab_slice=1s"}, {"--ab_slice", "--ab"}},
      {{"run", target, "--ab=none"}, {"--ab=none"}},
      {{"start", target, "--ab=none,limits"},
       {"--vary, --ab, --ab_slice", "experiments run on"}},
  };
  for (const Refusal& c : refusals) {
    Result bad = Client(c.args);
    const std::string what = absl::StrJoin(c.args, " ");
    EXPECT_EQ(bad.code, 2) << what << ": " << bad.err;
    for (const char* word : c.words) {
      EXPECT_THAT(bad.err, HasSubstr(word)) << what;
    }
  }
}

TEST_F(ControlPlaneTest, AbWorkloadRefusesManualSplits) {
  const std::string ab = dir_ + "/ab.json";
  std::ofstream(ab) << R"({"ab_strategies": ["none", "limits"],
                           "ab_slice": "0.5s"})";
  Result started =
      Client({"start", "--target=" + dir_ + "/a", "--runtime=2s", "--qd=4",
              "--direct=false", "--spec_file=" + ab});
  ASSERT_EQ(started.code, 0) << started.err;
  const std::string id(absl::StripAsciiWhitespace(started.out));
  Result split = Client({"split", id, "fixed:64k"});
  EXPECT_EQ(split.code, 1);
  EXPECT_THAT(split.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(split.err, HasSubstr("split"));
  EXPECT_THAT(split.err, HasSubstr("ab_strategies"));
  ASSERT_EQ(Client({"stop", id}).code, 0);
}

TEST_F(ControlPlaneTest, ProbeAndCapabilities) {
  Result probe = Client({"probe", dir_ + "/a", "--api_json"});
  ASSERT_EQ(probe.code, 0) << probe.err;
  const auto target = FromJson<v1::ProbeTargetResponse>(probe.out).target();
  EXPECT_EQ(target.kind(), v1::TARGET_KIND_REGULAR_FILE);
  EXPECT_EQ(target.size_bytes(), 16u << 20);
  EXPECT_TRUE(target.read_allowed());
  EXPECT_FALSE(target.write_allowed());
  EXPECT_TRUE(target.has_limits());
  Result probe_text = Client({"probe", dir_ + "/a"});
  ASSERT_EQ(probe_text.code, 0) << probe_text.err;
  EXPECT_THAT(probe_text.out, HasSubstr("regular file, 16.00MiB"));
  if (!target.device_name().empty()) {
    for (const char* limit :
         {"max_sectors_kb", "max_hw_sectors_kb", "max_segments",
          "max_segment_size", "virt_boundary_mask", "chunk_sectors",
          "optimal_io_size", "io_poll", "nr_requests", "rotational",
          "scheduler", "nomerges", "rq_affinity", "write_cache",
          "poll_queues"}) {
      EXPECT_THAT(probe_text.out, HasSubstr(limit));
    }
  }
  Result caps = Client({"caps"});
  EXPECT_EQ(caps.code, 0);
  EXPECT_THAT(caps.out, HasSubstr("API version 1"));
}

TEST_F(ControlPlaneTest, SigtermDrainsAndExitsZero) {
  const std::string id = Start("/a", "60s");
  auto watcher = Background({"watch", id, "--api_json", "--interval=200ms"});
  absl::SleepFor(absl::Milliseconds(700));
  const absl::Time begin = absl::Now();
  daemon_->child().Signal(SIGTERM);
  EXPECT_EQ(daemon_->child().Wait(absl::Seconds(10)), 0)
      << daemon_->child().Err();
  EXPECT_LT(absl::Now() - begin, absl::Seconds(5));
  // The watcher got the terminal message before the daemon left.
  ASSERT_EQ(watcher->Wait(absl::Seconds(10)), 0) << watcher->Err();
  const auto messages = WatchLines(watcher->Out());
  ASSERT_FALSE(messages.empty());
  const v1::Workload& last = messages.back().workload();
  EXPECT_EQ(last.state(), v1::WORKLOAD_STATE_STOPPED);
  EXPECT_GT(last.snapshot().total().ios(), 0u);
  EXPECT_THAT(last.snapshot().notes(),
              ::testing::Contains(HasSubstr("shutting down")));
  EXPECT_THAT(daemon_->child().Err(), HasSubstr("shut down cleanly"));
}

}  // namespace
}  // namespace blkperf

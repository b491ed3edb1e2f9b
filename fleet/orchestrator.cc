#include "fleet/orchestrator.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <thread>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "wire/merge.h"

namespace blkperf::fleet {
namespace {

// How long after a run's expected end its collecting round goes out.
constexpr int64_t kEndSlackNs = 50'000'000;

// Longest abort reason sent (the daemon keeps 256 bytes).
constexpr size_t kMaxReason = 200;

google::protobuf::Duration ToProto(absl::Duration d) {
  google::protobuf::Duration p;
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  p.set_seconds(ns / 1000000000);
  p.set_nanos(static_cast<int32_t>(ns % 1000000000));
  return p;
}

int64_t Nanos(const google::protobuf::Duration& d) {
  return d.seconds() * 1000000000 + d.nanos();
}

bool Ended(v1::WorkloadState s) {
  return s == v1::WORKLOAD_STATE_FINISHED || s == v1::WORKLOAD_STATE_STOPPED ||
         s == v1::WORKLOAD_STATE_FAILED || s == v1::WORKLOAD_STATE_ABORTED;
}

RetryPolicy Until(RetryPolicy policy, absl::Time deadline) {
  policy.deadline = std::min(policy.deadline, deadline);
  return policy;
}

// One step's calls to one host, retries included, within `budget` from
// now: a hung host costs a step that budget, not call_timeout x attempts.
RetryPolicy Within(const FleetOptions& options, absl::Duration budget) {
  return Until(options.retry, absl::Now() + budget);
}

// How long one poll of a host may take before the round goes on without
// it: an interval, at least kMinPollBudget, at most call_timeout. A host
// silent for longer than call_timeout is lost (PollHosts).
constexpr absl::Duration kMinPollBudget = absl::Seconds(1);
absl::Duration PollBudget(const FleetOptions& options) {
  return std::min(options.call_timeout,
                  std::max(options.poll_interval, kMinPollBudget));
}

absl::Status Connect(const FleetOptions& options, const RetryPolicy& policy,
                     HostRun& host) {
  if (host.connection != nullptr) return absl::OkStatus();
  ChannelOptions c = options.channel;
  c.server = host.address;
  c.call_timeout = options.call_timeout;
  c.keepalive_time = options.keepalive_time;
  // Every fleet response carries api_version and is checked; skipping
  // GetCapabilities saves a call per host.
  c.fetch_capabilities = false;
  absl::StatusOr<std::unique_ptr<Connection>> connection =
      CallWithRetry<std::unique_ptr<Connection>>(
          policy, Idempotency::kIdempotent, [&] {
            // Never wait past the step's deadline (--arm_timeout).
            const absl::Duration wait =
                std::min(options.connect_timeout,
                         std::max(absl::Milliseconds(1),
                                  policy.deadline - absl::Now()));
            return Connection::Open(c, wait, policy.budget());
          });
  if (!connection.ok()) return connection.status();
  host.connection = *std::move(connection);
  return absl::OkStatus();
}

// Polls the host's workload within `policy`; sets answered_local_ns.
absl::StatusOr<v1::Workload> GetOne(const RetryPolicy& policy, HostRun& host) {
  v1::GetWorkloadRequest request;
  request.set_workload_id(host.workload_id);
  // Phases (a split, A/B slices) merge exactly only with their histograms
  // (phase_merge.h); a run that never split has one phase or none.
  request.set_phase_histograms(
      host.workload.snapshot().phases_size() > 1 ||
      host.workload.spec().ab_strategies_size() > 0);
  // The final series with its intervals' histograms, for the fleet's exact
  // per-interval merge (series_merge.h); a running workload sends none.
  request.set_ended_series_histograms(true);
  absl::StatusOr<v1::GetWorkloadResponse> r =
      CallWithRetry<v1::GetWorkloadResponse>(
          policy, Idempotency::kIdempotent,
          [&] { return host.connection->GetWorkload(request, policy.budget()); });
  if (!r.ok()) return r.status();
  host.answered_local_ns = MonotonicNowNs();
  return r->workload();
}

// Records a polled workload: a sample when measured time advanced, the
// end when it ended. Returns the reason it is lost, if it is.
std::string Record(const v1::Workload& w, HostRun& host) {
  host.workload = w;
  const v1::Snapshot& s = w.snapshot();
  const int64_t elapsed = Nanos(s.elapsed());
  if (elapsed > 0) {
    AddSample(host.samples, {elapsed, s.total().ios(), s.total().bytes()});
  }
  if (!Ended(w.state())) return "";
  if (w.state() == v1::WORKLOAD_STATE_FINISHED) {
    host.state = HostState::kCompleted;
    // Folded into the fleet's series, its histograms dropped (bounded).
    if (host.series) {
      host.series->Add(host.address,
                       *host.workload.mutable_snapshot()->mutable_series());
    }
    return "";
  }
  std::string reason = absl::StrCat(
      "ended ", absl::AsciiStrToLower(absl::StripPrefix(
                    v1::WorkloadState_Name(w.state()), "WORKLOAD_STATE_")));
  if (!w.end_reason().empty()) absl::StrAppend(&reason, ": ", w.end_reason());
  if (!s.error().message().empty()) {
    absl::StrAppend(&reason, ": ", s.error().message());
  }
  return reason;
}

void PollHosts(const FleetOptions& options, std::vector<HostRun>& hosts) {
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    host.polled = host.state == HostState::kStarted;
    if (!host.polled) return;
    host.previous_total = host.workload.snapshot().total();
    host.previous_elapsed_ns = Nanos(host.workload.snapshot().elapsed());
    absl::StatusOr<v1::Workload> w =
        GetOne(Within(options, PollBudget(options)), host);
    if (!w.ok()) {
      const absl::Duration silent =
          absl::Nanoseconds(MonotonicNowNs() - host.answered_local_ns);
      if (absl::IsDeadlineExceeded(w.status()) &&
          silent < options.call_timeout) {
        host.polled = false;  // this round goes on without it
        return;
      }
      host.state = HostState::kLost;
      host.error = absl::IsDeadlineExceeded(w.status())
                       ? absl::StrCat("no answer for ",
                                      absl::FormatDuration(absl::Trunc(
                                          silent, absl::Milliseconds(100))),
                                      " (--call_timeout ",
                                      absl::FormatDuration(options.call_timeout),
                                      "): the daemon is hung, paused or "
                                      "overloaded (",
                                      w.status().message(), ")")
                       : absl::StrCat("unreachable: ", w.status().message());
      return;
    }
    const std::string lost = Record(*w, host);
    if (!lost.empty()) {
      host.state = HostState::kLost;
      host.error = lost;
    }
  });
}

}  // namespace

IntervalFigures FleetFigures(const std::vector<HostRun>& hosts) {
  IntervalFigures f;
  std::vector<v1::ThreadStats> intervals;
  bool first = true;
  for (const HostRun& host : hosts) {
    if (host.state != HostState::kStarted &&
        host.state != HostState::kCompleted) {
      continue;
    }
    ++f.hosts;
    if (host.state == HostState::kStarted) ++f.running;
    // A host that ended in an earlier round did no I/O in this interval;
    // its previous_total still spans its own last one.
    if (!host.polled) continue;
    const v1::ThreadStats& now = host.workload.snapshot().total();
    const int64_t dt =
        Nanos(host.workload.snapshot().elapsed()) - host.previous_elapsed_ns;
    if (dt <= 0) continue;
    const double iops = static_cast<double>(now.ios() - host.previous_total.ios()) * 1e9 / static_cast<double>(dt);
    f.iops += iops;
    f.bytes_per_second +=
        static_cast<double>(now.bytes() - host.previous_total.bytes()) * 1e9 /
        static_cast<double>(dt);
    if (first || iops < f.slowest_iops) {
      f.slowest_iops = iops;
      f.slowest_host = host.address;
      first = false;
    }
    absl::StatusOr<v1::LatencyHistogram> diff =
        SubtractHistogram(now.histogram(), host.previous_total.histogram());
    if (!diff.ok() || diff->count() == 0) continue;
    v1::ThreadStats interval;
    interval.set_ios(diff->count());
    *interval.mutable_histogram() = *std::move(diff);
    intervals.push_back(std::move(interval));
  }
  absl::StatusOr<v1::ThreadStats> merged =
      MergeThreadStats(intervals, absl::Seconds(1), "intervals");
  if (merged.ok()) f.p99_ns = merged->latency().p99_ns();
  return f;
}

namespace {

void SleepUnless(absl::Duration d, const std::atomic<bool>* interrupted) {
  const absl::Time end = absl::Now() + d;
  while (absl::Now() < end) {
    if (interrupted != nullptr && interrupted->load()) return;
    absl::SleepFor(std::min(absl::Milliseconds(20), end - absl::Now()));
  }
}

// Takes up to `max_count` clock samples of the host, back to back, and
// estimates its offset from them (clock_sync.h): samples close together in
// time, so that clocks drifting apart cannot skew the bounds. Stops once it
// has kMinClockSamples and the bound is within options.clock_error_target.
// Returns the samples taken.
absl::StatusOr<int> SampleClock(const FleetOptions& options, int max_count,
                                HostRun& host) {
  std::vector<ClockSample> samples;
  samples.reserve(static_cast<size_t>(max_count));
  // Every sample of this host, retries included, within one call_timeout.
  const RetryPolicy policy = Within(options, options.call_timeout);
  const int64_t target = absl::ToInt64Nanoseconds(options.clock_error_target);
  for (int k = 0; k < max_count; ++k) {
    ClockSample s;
    s.sent_ns = MonotonicNowNs();
    absl::StatusOr<v1::GetClockResponse> r =
        CallWithRetry<v1::GetClockResponse>(
            policy, Idempotency::kIdempotent,
            [&] { return host.connection->GetClock({}, policy.budget()); });
    s.received_ns = MonotonicNowNs();
    if (!r.ok()) return r.status();
    s.host_ns = r->monotonic_ns();
    samples.push_back(s);
    absl::StatusOr<ClockEstimate> e = EstimateOffset(samples);
    if (!e.ok()) return e.status();
    host.clock = *e;
    if (k + 1 >= kMinClockSamples && e->consistent && e->error_ns <= target) {
      break;
    }
  }
  return static_cast<int>(samples.size());
}

// Reads the clock of every host in `hosts` whose state is `state` (up to
// options.clock_samples samples each, hosts in parallel); hosts that fail
// get `fail_state` and an error starting with `fail_prefix`. Returns how
// long one round of calls over those hosts took (the whole pass divided by
// the mean samples per host): what a round of Go calls will cost.
absl::Duration SampleClocks(const FleetOptions& options,
                            std::vector<HostRun>& hosts, HostState state,
                            HostState fail_state,
                            absl::string_view fail_prefix) {
  const absl::Time begin = absl::Now();
  std::atomic<int64_t> sampled_hosts{0}, samples{0};
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    if (host.state != state) return;
    absl::StatusOr<int> taken =
        SampleClock(options, options.clock_samples, host);
    if (!taken.ok()) {
      host.state = fail_state;
      host.error = absl::StrCat(fail_prefix, taken.status().message());
      return;
    }
    ++sampled_hosts;
    samples += *taken;
  });
  const absl::Duration pass = absl::Now() - begin;
  if (samples.load() == 0) return pass;
  return pass * static_cast<double>(sampled_hosts.load()) /
         static_cast<double>(samples.load());
}

}  // namespace

int Quorum::Needed(int requested) const {
  if (!percent) return value;
  return static_cast<int>((static_cast<int64_t>(requested) * value + 99) / 100);
}

absl::StatusOr<Quorum> ParseQuorum(const std::string& text) {
  absl::string_view v = text;
  Quorum q;
  q.percent = absl::ConsumeSuffix(&v, "%");
  if (!absl::SimpleAtoi(v, &q.value) || q.value < 1 ||
      (q.percent && q.value > 100)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_hosts \"", text.substr(0, 32),
        "\" is not a host count >= 1 or a percentage 1%..100%"));
  }
  return q;
}

absl::Status CheckRunId(const std::string& run_id) {
  bool ok = !run_id.empty() && run_id.size() <= 64;
  for (char c : run_id) {
    ok = ok && (absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "run_id \"", run_id.substr(0, 64),
      "\" must be 1-64 characters of [A-Za-z0-9._-]"));
}

std::string NewRunId() {
  absl::BitGen gen;
  return absl::StrCat(
      "fleet-", absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()),
      "-", absl::StrFormat("%06x", absl::Uniform<uint32_t>(gen, 0, 1u << 24)));
}

absl::Status CheckOptions(const FleetOptions& o) {
  auto bad = [](const char* flag, const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", why));
  };
  if (absl::Status s = CheckRunId(o.run_id); !s.ok()) return s;
  if (o.max_in_flight < 1 || o.max_in_flight > 4096) {
    return bad("max_in_flight", absl::StrCat(o.max_in_flight, " is not in 1..4096"));
  }
  if (o.clock_samples < 1 || o.clock_samples > 1000) {
    return bad("clock_samples", absl::StrCat(o.clock_samples, " is not in 1..1000"));
  }
  if (o.call_timeout <= absl::ZeroDuration()) return bad("call_timeout", "must be > 0");
  if (o.arm_timeout <= absl::ZeroDuration()) return bad("arm_timeout", "must be > 0");
  if (o.lease < absl::Seconds(1) || o.lease > absl::Hours(1)) {
    return bad("lease", "must be in 1s..1h");
  }
  // As CheckLease() later: the first host may arm at once, the last at
  // --arm_timeout, and Go's instant lies a margin ahead with a margin of
  // room for the Go calls themselves.
  if (o.lease <= o.arm_timeout + 2 * o.start_margin) {
    return bad("lease", absl::StrCat(
        absl::FormatDuration(o.lease), " must exceed --arm_timeout + 2 x "
        "--start_margin (",
        absl::FormatDuration(o.arm_timeout + 2 * o.start_margin),
        "): hosts armed first would release themselves before Go"));
  }
  if (o.poll_interval < absl::Milliseconds(10)) {
    return bad("interval", "must be >= 10ms");
  }
  if (o.retry.max_attempts < 1) return bad("retries", "must be >= 0");
  return absl::OkStatus();
}

const char* HostStateName(HostState state) {
  switch (state) {
    case HostState::kPending: return "pending";
    case HostState::kArmFailed: return "arm_failed";
    case HostState::kArmed: return "armed";
    case HostState::kStarted: return "running";
    case HostState::kCompleted: return "completed";
    case HostState::kLost: return "lost";
    case HostState::kAborted: return "aborted";
  }
  return "unknown";
}

Orchestrator::Orchestrator(FleetOptions options,
                           std::vector<std::string> addresses,
                           const std::atomic<bool>* interrupted)
    : options_(std::move(options)), interrupted_(interrupted) {
  run_.run_id = options_.run_id;
  const auto series = std::make_shared<SeriesMerger>();
  for (std::string& a : addresses) {
    HostRun host;
    host.address = std::move(a);
    host.series = series;
    run_.hosts.push_back(std::move(host));
  }
}

bool Orchestrator::Interrupted() const {
  return interrupted_ != nullptr && interrupted_->load();
}

int Orchestrator::Count(HostState state) const {
  return static_cast<int>(std::count_if(
      run_.hosts.begin(), run_.hosts.end(),
      [&](const HostRun& h) { return h.state == state; }));
}

absl::StatusOr<FleetRun> Orchestrator::Run(const v1::WorkloadSpec& spec) {
  if (absl::Status s = CheckOptions(options_); !s.ok()) return s;
  if (spec.steady_state().mode() == v1::STEADY_STATE_MODE_GATE) {
    // Each host would measure from its own attainment: the fleet's totals
    // and merged series are over one common window.
    return absl::InvalidArgumentError(
        "spec.steady_state.mode gate is not for fleet runs: every host is "
        "measured over one common window (use stop, or gate on one host)");
  }
  const int requested = static_cast<int>(run_.hosts.size());
  run_.needed = options_.min_hosts.Needed(requested);
  if (run_.needed > requested) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_hosts needs ", run_.needed, " hosts but the inventory has ",
        requested));
  }
  if (const std::string note = PrepareForHosts(run_.hosts.size());
      !note.empty()) {
    std::cerr << "blkperf fleet: " << note << std::endl;
  }
  absl::Time step = absl::Now();
  ArmAll(spec);
  run_.arm_time = absl::Now() - step;
  if (Interrupted()) {
    AbortAll("interrupted (SIGINT/SIGTERM) while arming");
    return std::move(run_);
  }
  if (Count(HostState::kArmed) < run_.needed) {
    AbortAll(absl::StrCat("quorum not met: ", Count(HostState::kArmed), " of ",
                          requested, " hosts armed within "
                          "--arm_timeout, ", run_.needed,
                          " needed (--min_hosts)"));
    return std::move(run_);
  }
  step = absl::Now();
  ReadClocks();
  run_.clock_time = absl::Now() - step;
  if (absl::Status lease = CheckLease(); !lease.ok()) {
    AbortAll(std::string(lease.message()));
    return std::move(run_);
  }
  if (Count(HostState::kArmed) < run_.needed || Interrupted()) {
    AbortAll(Interrupted() ? "interrupted (SIGINT/SIGTERM) before Go"
                           : absl::StrCat("quorum lost while reading clocks: ",
                                          Count(HostState::kArmed),
                                          " hosts left, ", run_.needed,
                                          " needed (--min_hosts)"));
    return std::move(run_);
  }
  step = absl::Now();
  GoAll();
  run_.go_time = absl::Now() - step;
  ReleaseLeftOut();
  HandleLosses();
  if (run_.abort_reason.empty()) {
    ReadIdentity(options_, run_.hosts, run_.start_local_ns - kIdentityLeadNs,
                 interrupted_);
  }
  step = absl::Now();
  if (run_.abort_reason.empty()) Collect(spec);
  run_.collect_time = absl::Now() - step;
  // The live figures' copy of each host's last total is no longer read.
  for (HostRun& host : run_.hosts) v1::ThreadStats().Swap(&host.previous_total);
  return std::move(run_);
}

namespace {

// The Arm request for `address`: `request`, or a copy with that host's
// own target paths (FleetOptions::target_paths) in its spec.
absl::StatusOr<const v1::ArmWorkloadRequest*> RequestFor(
    const FleetOptions& options, const std::string& address,
    const v1::ArmWorkloadRequest& request, v1::ArmWorkloadRequest& own) {
  auto it = options.target_paths.find(address);
  if (it == options.target_paths.end()) return &request;
  const std::vector<std::string>& paths = it->second;
  if (request.spec().targets_size() == 0) {  // the host's own targets
    own = request;
    for (const std::string& path : paths) {
      own.mutable_spec()->add_targets()->set_path(path);
    }
    return &own;
  }
  if (static_cast<int>(paths.size()) != request.spec().targets_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "file_sd label blkperf_targets of ", address, " gives ", paths.size(),
        " path(s); the spec has ", request.spec().targets_size(),
        " target(s): give one path per --target, in order"));
  }
  own = request;
  for (size_t i = 0; i < paths.size(); ++i) {
    own.mutable_spec()->mutable_targets(static_cast<int>(i))->set_path(paths[i]);
  }
  return &own;
}

// An earlier run with this id that got further here than arming (it was
// released, or it ended) is refused: Go could not start it at this run's
// instant.
absl::StatusOr<v1::ArmWorkloadResponse> RefuseEarlierRun(
    v1::ArmWorkloadResponse r, const std::string& run_id) {
  if (!r.existing() || r.workload().state() == v1::WORKLOAD_STATE_ARMED) {
    return r;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "run id ", run_id, " is already ",
      absl::AsciiStrToLower(absl::StripPrefix(
          v1::WorkloadState_Name(r.workload().state()), "WORKLOAD_STATE_")),
      " here (workload ", r.workload_id(), "): give this run a new --run_id"));
}

// A host's arm answer onto it: armed, or failed saying why (interrupted,
// refused, or armed only after --arm_timeout).
void RecordArm(const absl::StatusOr<v1::ArmWorkloadResponse>& r,
               bool cancelled, absl::Time deadline, absl::Duration timeout,
               HostRun& host) {
  if (!r.ok() && cancelled) {
    host.state = HostState::kArmFailed;
    host.error = "not armed: interrupted";
  } else if (!r.ok()) {
    host.state = HostState::kArmFailed;
    host.error = std::string(r.status().message());
    if (absl::IsUnimplemented(r.status())) {
      absl::StrAppend(&host.error, " (this blkperfd is too old for fleet "
                                   "runs: upgrade it)");
    }
  } else if (absl::Now() > deadline) {
    host.state = HostState::kArmFailed;
    host.workload_id = r->workload_id();
    host.error = absl::StrCat("armed after --arm_timeout (",
                              absl::FormatDuration(timeout), ")");
  } else {
    host.state = HostState::kArmed;
    host.armed_local_ns = MonotonicNowNs();
    host.workload_id = r->workload_id();
    host.workload = r->workload();
  }
}

}  // namespace

void Orchestrator::ArmAll(const v1::WorkloadSpec& spec) {
  const absl::Time deadline = absl::Now() + options_.arm_timeout;
  // Ctrl-C ends the calls in flight at once (a hung host's connect or Arm
  // would otherwise hold the abort until --arm_timeout).
  CallCanceller cancel;
  RetryPolicy policy = Until(options_.retry, deadline);
  policy.canceller = &cancel;
  std::atomic<bool> arming{true};
  std::thread watch([&] {
    while (arming.load()) {
      if (Interrupted()) {
        cancel.Cancel();
        return;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  });
  v1::ArmWorkloadRequest request;
  request.set_run_id(run_.run_id);
  *request.mutable_spec() = spec;
  *request.mutable_lease() = ToProto(options_.lease);
  ForEachBounded(run_.hosts.size(), options_.max_in_flight, [&](size_t i) {
    HostRun& host = run_.hosts[i];
    if (Interrupted()) {
      host.state = HostState::kArmFailed;
      host.error = "not armed: interrupted";
      return;
    }
    v1::ArmWorkloadRequest own;
    absl::StatusOr<const v1::ArmWorkloadRequest*> arm =
        RequestFor(options_, host.address, request, own);
    absl::Status s =
        arm.ok() ? Connect(options_, policy, host) : arm.status();
    absl::StatusOr<v1::ArmWorkloadResponse> r =
        s.ok() ? absl::UnknownError("not called") : s;
    if (s.ok()) {
      r = CallWithRetry<v1::ArmWorkloadResponse>(
          policy, Idempotency::kIdempotent, [&] {
            if (host.arm_sent_local_ns == 0) {
              host.arm_sent_local_ns = MonotonicNowNs();
            }
            return host.connection->ArmWorkload(**arm, policy.budget());
          });
    }
    if (r.ok()) r = RefuseEarlierRun(*std::move(r), run_.run_id);
    RecordArm(r, cancel.cancelled(), deadline, options_.arm_timeout, host);
  });
  arming.store(false);
  watch.join();
}

void Orchestrator::ReadClocks() {
  const absl::Duration round =
      SampleClocks(options_, run_.hosts, HostState::kArmed,
                   HostState::kArmFailed, "armed but clock not read: ");
  run_.margin = std::max(options_.start_margin, 2 * round);
}

void Orchestrator::ReleaseLeftOut() {
  ForEachBounded(run_.hosts.size(), options_.max_in_flight, [&](size_t i) {
    HostRun& host = run_.hosts[i];
    if (host.state != HostState::kArmFailed || host.workload_id.empty()) {
      return;
    }
    v1::AbortRunRequest request;
    request.set_run_id(run_.run_id);
    request.set_reason(
        absl::StrCat("left out of the run: ", host.error).substr(0, kMaxReason));
    const RetryPolicy policy = Within(options_, options_.call_timeout);
    absl::StatusOr<v1::AbortRunResponse> r = CallWithRetry<v1::AbortRunResponse>(
        policy, Idempotency::kIdempotent,
        [&] { return host.connection->AbortRun(request, policy.budget()); });
    absl::StrAppend(&host.error,
                    r.ok() ? "; released"
                           : absl::StrCat("; release failed (its lease ends it): ",
                                          r.status().message()));
  });
}

absl::Status Orchestrator::CheckLease() const {
  // A host's lease began when the daemon armed it, which may have been on
  // an attempt whose answer was lost: count from the first attempt sent.
  int64_t first_armed = 0;
  for (const HostRun& h : run_.hosts) {
    if (h.state != HostState::kArmed) continue;
    if (first_armed == 0 || h.arm_sent_local_ns < first_armed) {
      first_armed = h.arm_sent_local_ns;
    }
  }
  if (first_armed == 0) return absl::OkStatus();
  // Go goes out now and starts `margin` later; a round of Go calls must
  // fit too, so ask for one more margin of room.
  const int64_t needed = MonotonicNowNs() - first_armed +
                         2 * absl::ToInt64Nanoseconds(run_.margin);
  if (needed < absl::ToInt64Nanoseconds(options_.lease)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "lease ", absl::FormatDuration(options_.lease),
      " is too short: the first host was sent Arm ",
      absl::FormatDuration(absl::Trunc(
          absl::Nanoseconds(MonotonicNowNs() - first_armed), absl::Milliseconds(1))),
      " ago and the start margin is ",
      absl::FormatDuration(absl::Trunc(run_.margin, absl::Milliseconds(1))),
      "; raise --lease"));
}

void Orchestrator::GoAll() {
  run_.start_local_ns =
      MonotonicNowNs() + absl::ToInt64Nanoseconds(run_.margin);
  run_.started = true;
  ForEachBounded(run_.hosts.size(), options_.max_in_flight, [&](size_t i) {
    HostRun& host = run_.hosts[i];
    if (host.state != HostState::kArmed) return;
    v1::GoWorkloadRequest request;
    request.set_run_id(run_.run_id);
    host.go_host_ns = run_.start_local_ns + host.clock.offset_ns;
    request.set_start_monotonic_ns(host.go_host_ns);
    const RetryPolicy policy = Within(options_, options_.call_timeout);
    absl::StatusOr<v1::GoWorkloadResponse> r =
        CallWithRetry<v1::GoWorkloadResponse>(
            policy, Idempotency::kIdempotent,
            [&] { return host.connection->GoWorkload(request, policy.budget()); });
    if (!r.ok()) {
      host.state = HostState::kLost;
      host.error = absl::StrCat("Go failed: ", r.status().message());
      return;
    }
    host.state = HostState::kStarted;
    host.answered_local_ns = MonotonicNowNs();
    host.workload = r->workload();
  });
}

void Orchestrator::Collect(const v1::WorkloadSpec& spec) {
  // When a host that starts on time ends (its ramp and runtime after the
  // start instant), this process's clock; 0 for a run with no set end.
  const int64_t runtime = Nanos(spec.runtime());
  const int64_t expected_end =
      runtime > 0 ? run_.start_local_ns + Nanos(spec.ramp_time()) + runtime
                  : 0;
  // Rounds start an interval apart: a round that took part of the
  // interval (a large fleet) shortens the wait, it does not add to it. The
  // first goes out an interval after the start instant (at it every host
  // reports zeros), and a round due after the expected end goes out just
  // after it instead (kEndSlack later), so a run is collected as soon as
  // it ends, not up to an interval later.
  int64_t next_round = run_.start_local_ns +
                       absl::ToInt64Nanoseconds(options_.poll_interval);
  while (Count(HostState::kStarted) > 0) {
    if (expected_end > 0 && next_round > expected_end + kEndSlackNs &&
        MonotonicNowNs() < expected_end + kEndSlackNs) {
      next_round = expected_end + kEndSlackNs;
    }
    const int64_t wait = next_round - MonotonicNowNs();
    if (wait > 0) SleepUnless(absl::Nanoseconds(wait), interrupted_);
    if (Interrupted()) {
      AbortAll("interrupted (SIGINT/SIGTERM)");
      return;
    }
    next_round =
        MonotonicNowNs() + absl::ToInt64Nanoseconds(options_.poll_interval);
    PollHosts(options_, run_.hosts);
    HandleLosses();
    if (on_interval_) on_interval_(FleetFigures(run_.hosts));
    if (!run_.abort_reason.empty()) return;
  }
}

void Orchestrator::HandleLosses() {
  if (options_.on_host_loss != OnHostLoss::kAbort) return;
  for (const HostRun& host : run_.hosts) {
    if (host.state == HostState::kLost) {
      AbortAll(absl::StrCat("host ", host.address, " lost (", host.error,
                            "); --on_host_loss=abort"));
      return;
    }
  }
}

void Orchestrator::AbortAll(const std::string& reason) {
  if (run_.abort_reason.empty()) run_.abort_reason = reason;
  v1::AbortRunRequest request;
  request.set_run_id(run_.run_id);
  request.set_reason(reason.substr(0, kMaxReason));
  ForEachBounded(run_.hosts.size(), options_.max_in_flight, [&](size_t i) {
    HostRun& host = run_.hosts[i];
    // Every host that may hold the run is told, lost ones too (a host lost
    // to the network may still be running).
    if (host.connection == nullptr || host.state == HostState::kCompleted) {
      return;
    }
    const RetryPolicy policy = Within(options_, options_.call_timeout);
    absl::StatusOr<v1::AbortRunResponse> r = CallWithRetry<v1::AbortRunResponse>(
        policy, Idempotency::kIdempotent,
        [&] { return host.connection->AbortRun(request, policy.budget()); });
    const bool held = host.state == HostState::kArmed ||
                      host.state == HostState::kStarted;
    if (r.ok() && !r->workload().workload_id().empty()) {
      const HostState before = host.state;
      (void)Record(r->workload(), host);
      if (host.state == HostState::kCompleted && before == HostState::kStarted) {
        return;  // it finished before the abort arrived
      }
      host.state = before;
    } else if (!r.ok() && held && !absl::IsNotFound(r.status())) {
      host.error = absl::StrCat("AbortRun failed: ", r.status().message());
      host.state = HostState::kLost;
      return;
    }
    if (held) {
      host.state = HostState::kAborted;
      host.error = reason;
    }
  });
}

absl::StatusOr<std::vector<HostRun>> FindRun(
    const FleetOptions& options, const std::vector<std::string>& addresses,
    const std::string& run_id) {
  if (absl::Status s = CheckRunId(run_id); !s.ok()) return s;
  if (const std::string note = PrepareForHosts(addresses.size());
      !note.empty()) {
    std::cerr << "blkperf fleet: " << note << std::endl;
  }
  std::vector<HostRun> hosts(addresses.size());
  const auto series = std::make_shared<SeriesMerger>();
  for (HostRun& host : hosts) host.series = series;
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    host.address = addresses[i];
    const RetryPolicy policy =
        Within(options, options.connect_timeout + options.call_timeout);
    absl::Status s = Connect(options, policy, host);
    absl::StatusOr<v1::ListWorkloadsResponse> list =
        s.ok() ? absl::UnknownError("not called") : s;
    if (s.ok()) {
      list = CallWithRetry<v1::ListWorkloadsResponse>(
          policy, Idempotency::kIdempotent,
          [&] { return host.connection->ListWorkloads({}, policy.budget()); });
    }
    if (!list.ok()) {
      host.state = HostState::kArmFailed;
      host.error = std::string(list.status().message());
      return;
    }
    for (const v1::Workload& w : list->workloads()) {
      if (w.run_id() == run_id) host.workload_id = w.workload_id();
    }
    if (host.workload_id.empty()) {
      host.state = HostState::kArmFailed;
      host.error = absl::StrCat("no workload of run ", run_id, " here");
      return;
    }
    absl::StatusOr<v1::Workload> w = GetOne(policy, host);
    if (!w.ok()) {
      host.state = HostState::kLost;
      host.error = std::string(w.status().message());
      return;
    }
    host.state = HostState::kStarted;
    const std::string lost = Record(*w, host);
    if (!lost.empty()) {
      host.state = HostState::kLost;
      host.error = lost;
    }
  });
  return hosts;
}

void ReadRunClocks(const FleetOptions& options, std::vector<HostRun>& hosts) {
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    if (host.state != HostState::kStarted &&
        host.state != HostState::kCompleted) {
      return;
    }
    if (host.connection == nullptr) {
      host.error = "clock not read: its connection is closed";
      return;
    }
    absl::StatusOr<int> taken =
        SampleClock(options, options.clock_samples, host);
    if (!taken.ok()) {
      host.error = absl::StrCat("clock not read: ", taken.status().message());
    }
  });
}

void ReadIdentity(const FleetOptions& options, std::vector<HostRun>& hosts,
                  int64_t deadline_local_ns,
                  const std::atomic<bool>* interrupted) {
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    if (host.state != HostState::kStarted || host.connection == nullptr ||
        host.identity_read) {
      return;
    }
    if ((deadline_local_ns != 0 && MonotonicNowNs() >= deadline_local_ns) ||
        (interrupted != nullptr && interrupted->load())) {
      return;
    }
    // A call in flight at the deadline ends there too: a host that stops
    // answering cannot hold the run's first poll.
    CallBudget budget;
    if (deadline_local_ns != 0) {
      budget.deadline =
          absl::Now() +
          absl::Nanoseconds(std::max<int64_t>(
              0, deadline_local_ns - MonotonicNowNs()));
    }
    absl::StatusOr<v1::GetCapabilitiesResponse> caps =
        host.connection->GetCapabilities({}, budget);
    if (!caps.ok()) return;
    host.identity_read = true;
    host.kernel_release = caps->kernel_release();
    host.daemon_version = caps->daemon_version();
  });
}

void WatchRun(const FleetOptions& options, std::vector<HostRun>& hosts,
              const std::atomic<bool>* interrupted,
              const std::function<void(const IntervalFigures&)>& on_interval) {
  auto running = [&] {
    return std::any_of(hosts.begin(), hosts.end(), [](const HostRun& h) {
      return h.state == HostState::kStarted;
    });
  };
  while (running() && !(interrupted != nullptr && interrupted->load())) {
    SleepUnless(options.poll_interval, interrupted);
    PollHosts(options, hosts);
    on_interval(FleetFigures(hosts));
  }
}

void SplitRun(const FleetOptions& options, std::vector<HostRun>& hosts,
              const std::string& strategy) {
  const absl::Duration round =
      SampleClocks(options, hosts, HostState::kStarted, HostState::kLost,
                   "clock not read: ");
  const int64_t at =
      MonotonicNowNs() +
      absl::ToInt64Nanoseconds(std::max(options.start_margin, 2 * round));
  ForEachBounded(hosts.size(), options.max_in_flight, [&](size_t i) {
    HostRun& host = hosts[i];
    if (host.state != HostState::kStarted) return;
    v1::SetSplitStrategyRequest request;
    request.set_workload_id(host.workload_id);
    request.set_split(strategy);
    request.set_at_monotonic_ns(at + host.clock.offset_ns);
    host.go_host_ns = request.at_monotonic_ns();
    const RetryPolicy policy = Within(options, options.call_timeout);
    absl::StatusOr<v1::SetSplitStrategyResponse> r =
        CallWithRetry<v1::SetSplitStrategyResponse>(
            policy, Idempotency::kNotIdempotent, [&] {
              return host.connection->SetSplitStrategy(request, policy.budget());
            });
    if (!r.ok()) host.error = std::string(r.status().message());
  });
}

}  // namespace blkperf::fleet

// The fleet orchestrator: one workload on many daemons, armed everywhere,
// released at one instant, watched and collected.
//
//   Orchestrator o(options, {"10.0.0.1:7777", "10.0.0.2:7777"}, &interrupted);
//   absl::StatusOr<FleetRun> run = o.Run(spec);
//   absl::StatusOr<FleetReport> report = BuildReport(*run);  // report.h
//
// Steps (each bounded to max_in_flight calls in flight, idempotent calls
// retried with backoff; a step's calls to one host, retries included, end
// within one budget: --arm_timeout for arming, call_timeout for the others,
// so a hung host costs a step call_timeout, never call_timeout x attempts):
//   1. Arm on every host with the run id; hosts armed when arm_timeout has
//      passed count, the rest fail with their error. Fewer than min_hosts:
//      AbortRun everywhere, nothing starts.
//   2. Once arming is over, GetClock up to clock_samples times per armed
//      host, back to back (hosts in parallel; a host stops early once its
//      bound is within clock_error_target), and bound each host's offset by
//      the intersection of its samples' bounds (clock_sync.h; never looser
//      than half the minimum round trip). Samples are taken just before Go,
//      not at each host's Arm, so clock drift while others arm cannot skew
//      them. A host whose clock cannot be read is left out and released.
//   3. Pick a common start instant on this process's CLOCK_MONOTONIC a safe
//      margin ahead: at least start_margin and at least twice one round of
//      calls over the hosts (a round of Go calls costs about as much);
//      GoWorkload on each host at that instant + its offset. Hosts armed
//      but left out (late or clock unread) get AbortRun. While the
//      instant is still ahead, each started host's identity is read
//      (ReadIdentity: calls that would otherwise follow the run), up to
//      kIdentityLeadNs before the instant, so none lands in a measured run.
//   4. Poll GetWorkload every poll_interval from one interval after the
//      start instant (rounds start an interval apart, however long a round
//      over the fleet takes; a round due after the run's expected end, the
//      start instant + ramp + runtime, goes out 50 ms after that end
//      instead) until every host has ended,
//      keeping each host's cumulative samples. A poll of a host gets an
//      interval (at least 1 s, at most call_timeout); a host that does not
//      answer in it is left out of that round's figures (the live lines go
//      on), and one silent for call_timeout since its last answer is lost
//      (hung or paused). A host lost (that, unreachable past the retries,
//      or ended FAILED/ABORTED/STOPPED by anyone else) is excluded
//      (continue) or aborts the run everywhere (abort).
//   `interrupted` set (Ctrl-C): AbortRun everywhere; while arming, the
//   connects and Arm calls in flight are cancelled at once.
#ifndef BLKPERF_FLEET_ORCHESTRATOR_H_
#define BLKPERF_FLEET_ORCHESTRATOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fleet/calls.h"
#include "fleet/clock_sync.h"
#include "fleet/merge.h"
#include "fleet/series_merge.h"
#include "proto/blkperf.pb.h"
#include "wire/connection.h"

namespace blkperf::fleet {

enum class OnHostLoss { kAbort, kContinue };

// --min_hosts: N hosts or N percent of those requested.
struct Quorum {
  int value = 100;
  bool percent = true;
  // Hosts needed out of `requested` (percent rounds up).
  int Needed(int requested) const;
};
// Parses "N" or "N%". InvalidArgument naming min_hosts otherwise.
absl::StatusOr<Quorum> ParseQuorum(const std::string& text);

// Checks a run id: 1-64 characters of [A-Za-z0-9._-].
absl::Status CheckRunId(const std::string& run_id);
// A fresh run id: "fleet-" + UTC time + random suffix.
std::string NewRunId();

// Samples every host gets before its clock sampling may stop early (one
// sample's bound is already a hard bound: half its round trip).
inline constexpr int kMinClockSamples = 1;

// How long before the start instant the identity reads of step 3 stop
// (the daemons open their start gates 20 ms ahead).
inline constexpr int64_t kIdentityLeadNs = 50'000'000;

struct FleetOptions {
  std::string run_id;
  // The most calls in flight at once; ForEachBounded (calls.h) adapts how
  // many are below it.
  int max_in_flight = 256;
  absl::Duration connect_timeout = absl::Seconds(5);
  absl::Duration call_timeout = absl::Seconds(10);
  absl::Duration keepalive_time = absl::Seconds(30);
  // TLS settings every host's channel is made with (server is ignored;
  // call_timeout and keepalive_time above take precedence).
  ChannelOptions channel;
  RetryPolicy retry;
  // At most this many GetClock samples per host; sampling a host stops
  // early once it has kMinClockSamples and its offset's error bound is at
  // most clock_error_target (more samples would tighten a bound already
  // well under the start skew the hosts can hold).
  int clock_samples = 16;
  absl::Duration clock_error_target = absl::Microseconds(250);
  Quorum min_hosts;
  absl::Duration arm_timeout = absl::Seconds(30);
  absl::Duration lease = absl::Seconds(60);
  absl::Duration start_margin = absl::Seconds(1);
  OnHostLoss on_host_loss = OnHostLoss::kAbort;
  // Per control address, that host's own target paths: they replace the
  // spec's targets' paths there, in order, or are its targets when the
  // spec has none (file_sd label blkperf_targets). A host not listed runs
  // the spec as given; a list whose length is not the spec's (non-zero)
  // target count fails that host's arming, naming the label.
  std::map<std::string, std::vector<std::string>> target_paths;
  absl::Duration poll_interval = absl::Seconds(1);
};

// Checks the options; InvalidArgument naming the flag.
absl::Status CheckOptions(const FleetOptions& options);

enum class HostState {
  kPending,    // nothing done yet
  kArmFailed,  // not armed (error says why)
  kArmed,      // armed, not released (quorum not met, or aborted before Go)
  kStarted,    // Go accepted, running
  kCompleted,  // ended FINISHED
  kLost,       // unreachable or ended otherwise mid-run (error says why)
  kAborted,    // aborted by this orchestrator (policy or Ctrl-C)
};
const char* HostStateName(HostState state);

struct HostRun {
  std::string address;
  HostState state = HostState::kPending;
  // Why it failed, was lost or was aborted.
  std::string error;
  std::unique_ptr<Connection> connection;
  std::string workload_id;
  // When its Arm answered, this process's CLOCK_MONOTONIC.
  int64_t armed_local_ns = 0;
  // When its first Arm attempt was sent, this process's CLOCK_MONOTONIC: a
  // lower bound of when its lease began (the daemon may have armed on an
  // attempt whose answer was lost, before the retry that answered).
  int64_t arm_sent_local_ns = 0;
  ClockEstimate clock;
  // When it last answered (Go or a poll), this process's CLOCK_MONOTONIC.
  int64_t answered_local_ns = 0;
  // The instant Go asked for, the daemon's CLOCK_MONOTONIC.
  int64_t go_host_ns = 0;
  // The latest workload seen (the final result once ended).
  v1::Workload workload;
  // Cumulative counts from the polls, on the host's measured time (the
  // first and last kKeptSamples / 2, merge.h).
  std::vector<CountSample> samples;
  // The previous poll's total (for per-interval figures).
  v1::ThreadStats previous_total;
  int64_t previous_elapsed_ns = 0;
  // Polled in the latest round: only then do previous_total and workload
  // span the last interval (a host that ended earlier adds nothing to it).
  bool polled = false;
  // The run's merged series, shared by its hosts: a host's final series is
  // folded in when it finishes (series_merge.h).
  std::shared_ptr<SeriesMerger> series;
  // What its daemon says of itself (GetCapabilities, ReadIdentity below);
  // identity_read false until it answered.
  bool identity_read = false;
  std::string kernel_release;
  std::string daemon_version;
};

struct FleetRun {
  std::string run_id;
  std::vector<HostRun> hosts;
  int needed = 0;
  bool started = false;
  // Why the run was aborted everywhere; empty if it was not.
  std::string abort_reason;
  // The common start instant, this process's CLOCK_MONOTONIC.
  int64_t start_local_ns = 0;
  absl::Duration margin;
  // How long each step took (wall time of this process).
  absl::Duration arm_time, clock_time, go_time, collect_time;
};

// One live line's figures (also used by `fleet watch`).
struct IntervalFigures {
  double iops = 0;
  double bytes_per_second = 0;
  uint64_t p99_ns = 0;
  std::string slowest_host;
  double slowest_iops = 0;
  int running = 0;
  int hosts = 0;
};

class Orchestrator {
 public:
  // `interrupted` (may be null) is read between steps and polls.
  Orchestrator(FleetOptions options, std::vector<std::string> addresses,
               const std::atomic<bool>* interrupted);

  // Called after every poll with the last interval's fleet figures.
  void OnInterval(std::function<void(const IntervalFigures&)> callback) {
    on_interval_ = std::move(callback);
  }

  // Runs the steps above. An error only for a run that could not begin
  // (bad options); quorum failures, losses and aborts are in the FleetRun.
  absl::StatusOr<FleetRun> Run(const v1::WorkloadSpec& spec);

 private:
  void ArmAll(const v1::WorkloadSpec& spec);
  // Reads every armed host's clock (clock_samples samples each, back to
  // back) and sets the start margin from how long a round of calls took.
  // Hosts whose clock cannot be read are left out (kArmFailed).
  void ReadClocks();
  // Releases (AbortRun) the hosts that armed but were left out: armed past
  // --arm_timeout or clock not read. Says so in their error.
  void ReleaseLeftOut();
  // FailedPrecondition when an armed host's lease could end before Go's
  // instant (the first Arm sent + lease < now + 2 * margin).
  absl::Status CheckLease() const;
  void GoAll();
  void Collect(const v1::WorkloadSpec& spec);
  void PollOnce();
  void HandleLosses();
  void AbortAll(const std::string& reason);
  int Count(HostState state) const;
  bool Interrupted() const;
  IntervalFigures Figures(int64_t interval_ns);

  FleetOptions options_;
  const std::atomic<bool>* interrupted_;
  std::function<void(const IntervalFigures&)> on_interval_;
  FleetRun run_;
};

// The last interval's fleet figures over `hosts` as the latest poll left
// them: hosts started or completed count, but only hosts polled in that
// round add to the rates and the merged p99.
IntervalFigures FleetFigures(const std::vector<HostRun>& hosts);

// `fleet watch` and `fleet split`: the hosts' workloads of run `run_id`,
// found with ListWorkloads. Hosts lacking it are listed in HostRun.error
// with state kArmFailed.
absl::StatusOr<std::vector<HostRun>> FindRun(const FleetOptions& options,
                                             const std::vector<std::string>& addresses,
                                             const std::string& run_id);

// Reads the clock of every host of `hosts` in state kStarted or kCompleted
// (clock_samples samples each, as before Go); a host whose clock cannot be
// read keeps its state and gets "clock not read: ..." in error.
// `fleet report` maps a finished run's start instants with it.
void ReadRunClocks(const FleetOptions& options, std::vector<HostRun>& hosts);

// Reads the identity (kernel release, daemon version: GetCapabilities on
// its connection, not retried) of every host of `hosts` in state kStarted
// with no identity read yet, starting no call once
// `deadline_local_ns` (this process's CLOCK_MONOTONIC; 0: none) has passed
// or `interrupted` (may be null) is set, and ending any call still in
// flight at that deadline. A host that does not answer keeps
// identity_read false.
void ReadIdentity(const FleetOptions& options, std::vector<HostRun>& hosts,
                  int64_t deadline_local_ns = 0,
                  const std::atomic<bool>* interrupted = nullptr);

// Live figures of an existing run until every host has ended or
// `interrupted` is set; calls `on_interval` after each poll.
void WatchRun(const FleetOptions& options, std::vector<HostRun>& hosts,
              const std::atomic<bool>* interrupted,
              const std::function<void(const IntervalFigures&)>& on_interval);

// Switches the run's split strategy on every host at one instant (a margin
// ahead, per host offsets as for Go). Not retried (not idempotent). Returns
// per-host errors in HostRun.error.
void SplitRun(const FleetOptions& options, std::vector<HostRun>& hosts,
              const std::string& strategy);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_ORCHESTRATOR_H_

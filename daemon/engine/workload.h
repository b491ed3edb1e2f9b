// A running workload: the engine's one entry point for the control plane and
// for `blkperfd run`.
//
//   absl::StatusOr<std::unique_ptr<Workload>> w =
//       Workload::Start(spec, EngineLimits{});
//   if (!w.ok()) return w.status();          // bad spec, setup failure
//   while (!(*w)->WaitFor(absl::Seconds(1))) Print((*w)->Snapshot());
//   WorkloadSnapshot result = (*w)->Snapshot();   // final once finished
//
// Start() validates the spec against the system, opens the targets, and
// starts one pinned submitter thread per CPU; each thread sets up its own
// ring, buffers and request objects. Snapshot() may be called from any thread
// at any time and never slows the submitters: it only reads their
// single-writer counters.
//
// Fleet runs split Start() in two: Arm() does all the setup and leaves every
// submitter blocked on a start gate (state kArmed, no I/O); Go(instant)
// releases them all at once at an instant of CLOCK_MONOTONIC:
//
//   absl::StatusOr<std::unique_ptr<Workload>> w = Workload::Arm(spec, {});
//   BLKPERF_RETURN_IF_ERROR((*w)->Go(MonotonicNowNs() + 200'000'000));
//   ... or (*w)->Abort() to end it (kAborted) without or during I/O.
#ifndef BLKPERF_DAEMON_ENGINE_WORKLOAD_H_
#define BLKPERF_DAEMON_ENGINE_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/pi_mutex.h"
#include "daemon/engine/host/cpu_registry.h"
#include "daemon/engine/host/other_cpu.h"
#include "daemon/engine/phase/phase_report.h"
#include "daemon/engine/ring/submitter.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/steady/steady_gate.h"
#include "daemon/engine/verify/verify_state.h"
#include "model/environment.h"
#include "model/series_builder.h"
#include "model/snapshot.h"
#include "model/steady_state.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace internal {

// What one SLO search step measured: totals over its measured window.
struct SloStepMeasure {
  bool complete = false;  // false: the workload ended during the step
  ThreadSnapshot totals;
  absl::Duration elapsed;
};

}  // namespace internal

class Workload {
 public:
  // Validates `spec`, sets every thread up and starts I/O. Returns once all
  // threads run, or the first error (InvalidArgument naming the field,
  // PermissionDenied for an unallowed write, FailedPrecondition for a target
  // that cannot poll with `polled: on`, ...). Nothing is left running on
  // error. With spec.precondition the threads are set up and wait while
  // the passes run on a thread of the workload's own (Preconditioning());
  // I/O and measuring start after them.
  static absl::StatusOr<std::unique_ptr<Workload>> Start(
      const WorkloadSpec& spec, const EngineLimits& limits);
  // As above, for a spec already validated (ValidateSpec: its fields are
  // not checked again). `probed`, when not empty, is each target as the
  // caller probed it through the descriptor it opened (TargetSpec::fd):
  // the engine then probes no target itself.
  static absl::StatusOr<std::unique_ptr<Workload>> Start(
      ValidatedSpec spec, std::vector<TargetInfo> probed = {});

  // Everything Start() does except releasing the submitters: files created
  // and pre-filled, targets open (and claimed), threads pinned, rings set up,
  // buffers allocated and registered. Every submitter then waits on the
  // start gate, asleep at SCHED_FIFO priority 1 (so the gate's opening
  // wakes it at once, whatever else its CPU runs); state kArmed; no I/O is
  // issued until Go(). Errors as Start()'s.
  static absl::StatusOr<std::unique_ptr<Workload>> Arm(
      const WorkloadSpec& spec, const EngineLimits& limits);
  static absl::StatusOr<std::unique_ptr<Workload>> Arm(
      ValidatedSpec spec, std::vector<TargetInfo> probed = {});
  // (Arm refuses spec.precondition with FailedPrecondition: an armed
  // workload starts at Go()'s instant, and preconditioning takes as long
  // as the device needs. Start() runs it before releasing the threads.)

  // Releases an armed workload at `at_monotonic_ns` (CLOCK_MONOTONIC ns): a
  // control thread sleeps (absolute clock_nanosleep) until a few ms before
  // it, reads the devices' counters and opens the gate for every submitter
  // at once; each submitter then waits for the instant itself on its own
  // CPU (start_instant.h) at SCHED_FIFO priority 1 until its first turn is
  // submitted (realtime_priority.h; a refusal is reported in
  // StartTimes.realtime_wait_*), so I/O starts within microseconds of it
  // rather than a timer wake-up plus a thread hand-off late, and other busy
  // threads on its CPU do not delay it. Measuring starts at
  // the instant (after ramp_time if any). An instant already past releases
  // at once. FailedPrecondition once released, stopped or aborted.
  // Thread-safe.
  absl::Status Go(int64_t at_monotonic_ns);

  // Ends the workload in state kAborted: an armed one releases its
  // submitters to exit without I/O, a running one stops and drains.
  // Idempotent; an ended workload keeps its state. Thread-safe.
  void Abort();

  // Whether Go() (or Start()) released the workload; false while armed.
  bool Released() const;

  // spec.precondition: true from Start() until the preconditioning passes
  // end (done, stopped or failed); the measured workload starts after
  // them. Snapshot() says how far they are (state kCreating, a note and
  // WorkloadSnapshot::precondition). Thread-safe.
  bool Preconditioning() const { return preconditioning_.load(); }

  ~Workload();  // Stops and joins.
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // Asks every submitter to stop; in-flight I/O drains. Thread-safe.
  void RequestStop();
  // RequestStop() for a signal handler: async-signal-safe (lock-free
  // atomic loads and stores only, no lock, no allocation). The report says
  // stopped, as after RequestStop(). REQUIRES: the workload came from
  // Start() (so it is released); on one still armed by Arm() only a later
  // RequestStop() or Abort() ends it.
  void RequestStopFromSignal();
  // Blocks until every submitter has ended its loop and joins them, without
  // holding the lock Snapshot() takes. A submitter that gave up on I/O a
  // stalled device holds is not joined: it is detached by the destructor
  // and exits when the device completes that I/O.
  void Wait();
  // Waits up to `timeout`; true when finished.
  bool WaitFor(absl::Duration timeout);
  bool Finished() const;

  // Live or final figures, with one phase per split-strategy period.
  // Thread-safe.
  WorkloadSnapshot Snapshot() const;

  // Switches the split strategy of the running workload: every submitter
  // picks it up within one loop turn, with no lock on the hot path; pieces
  // in flight finish as they were cut. Starts a new phase. Errors:
  // InvalidArgument (a fixed size not a multiple of a target's logical block
  // size, or more pieces per I/O than the rings were sized for),
  // FailedPrecondition (finished, or in A/B mode), ResourceExhausted (too
  // many switches). Thread-safe.
  absl::Status SetSplitStrategy(const SplitStrategy& strategy);

  // SetSplitStrategy at `at_monotonic_ns` (CLOCK_MONOTONIC): checked now,
  // switched then by a control thread (absolute clock_nanosleep), so phases
  // of workloads on many hosts line up. An instant already past switches at
  // once. One scheduled switch at a time: FailedPrecondition while another
  // is pending. Also allowed while armed. Thread-safe.
  absl::Status ScheduleSplitStrategy(const SplitStrategy& strategy,
                                     int64_t at_monotonic_ns);

  // Changes the open-loop rate of a running rate_iops workload to `iops`
  // I/Os per second, split evenly over its threads, as an SLO search's
  // steps do: each submitter restarts its schedule at the new rate within
  // one loop turn (one relaxed load per turn, as before). Errors:
  // FailedPrecondition (no rate_iops, job groups, an SLO search, or
  // ended), InvalidArgument (iops not above 0), ResourceExhausted (more
  // than kMaxSloSteps changes). Thread-safe.
  absl::Status SetOpenLoopRate(double iops);

  // The spec with defaults filled in and each target probed.
  const ResolvedSpec& spec() const { return spec_; }

 private:
  explicit Workload(ResolvedSpec spec);

  // Arm() without its preconditioning refusal: every setup step.
  static absl::StatusOr<std::unique_ptr<Workload>> SetUp(
      ValidatedSpec validated, std::vector<TargetInfo> probed);
  // Start()'s driver with spec.precondition: the passes
  // (RunPrecondition), then the measured run, or the workload's end when
  // they were stopped or failed.
  void PreconditionThenDrive();
  // Every pass over every target (precondition.cc). False when stopped,
  // past the time limit or failed (precondition_error_ set for the last
  // two).
  bool RunPrecondition();
  // One pass over target `index`: a write workload of its own through
  // this workload's open descriptor. Adds what it wrote to precondition_.
  absl::Status PreconditionPass(size_t index, uint32_t pass, bool direct,
                                int64_t deadline_ns);

  absl::Status OpenTargets();
  // Trim ops on a regular file: FailedPrecondition when its file system
  // cannot punch holes (probed past the end of the file, a no-op).
  absl::Status CheckTrimSupport(size_t index, int fd) const;
  // spec.verify: loads or creates each target's verify state (re-filling a
  // refill_for_verify target that has none) and builds verify_setup_.
  absl::Status SetUpVerify();
  absl::Status SizeRingsForStrategies();
  absl::Status CheckStrategyFits(const SplitStrategy& strategy) const;
  // Not in A/B mode, fits the rings, not ended (FailedPrecondition or
  // InvalidArgument naming "split").
  absl::Status CheckSwitchable(const SplitStrategy& strategy) const;
  // Creates the submitter threads and waits until each has set up; they
  // then wait on the gate. On error nothing is left running.
  absl::Status LaunchThreads();
  // Sets the measured window from the start instant (`start_at_ns`, or now)
  // and opens the gate; the first phase
  // starts from `device_baseline`, read before any I/O of this workload.
  // False (and nothing released) when stopped or aborted first.
  // `start_at_ns`: the instant I/O begins (CLOCK_MONOTONIC); 0 or one
  // already past begins at once.
  bool Release(const DeviceCounters& device_baseline, int64_t start_at_ns = 0);
  // Sleeps on CLOCK_MONOTONIC until `at_ns` (absolute clock_nanosleep),
  // waking every 100 ms to see whether the workload ended; false if it did.
  bool SleepUntil(int64_t at_ns) const;
  // Asks the submitters to stop (armed ones exit without I/O) and wakes
  // sleeping control threads.
  void StopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The lock-free part of every stop: running submitters end their loops
  // and sleeping control threads give up.
  void StopRunning();
  StartTimes StartTimesNow() const;
  // The workload's control thread: marks the first phase when measuring
  // starts (after a ramp), runs the A/B schedule or the SLO search, then
  // ends (it does not wait for the workload to end).
  void Drive();
  // The devices' cumulative counters now, kept as the final ones (called by
  // the last submitter to end, before finished_ is notified).
  void RecordFinalDevices() ABSL_LOCKS_EXCLUDED(mu_);
  // Publishes `strategy` as the next split generation and, once phases
  // are open, ends the phase before it (PhaseBoundaryTotals), waiting for
  // the threads at most a second and never past `next_switch_ns` (the
  // next A/B switch's; kNoNextSwitch for none). mu_ is taken only to
  // append the phase, so a reader never delays a switch.
  static constexpr int64_t kNoNextSwitch = INT64_MAX;
  absl::Status SwitchLocked(const SplitStrategy& strategy,
                            int64_t next_switch_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // SwitchLocked() in its two steps, for a caller that runs the first at
  // real-time priority only.
  struct PublishedSwitch {
    uint32_t generation = 0;
    int64_t at_ns = 0;  // CLOCK_MONOTONIC, just after the publication
  };
  absl::StatusOr<PublishedSwitch> PublishLocked(const SplitStrategy& strategy)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_);
  // The phase `published` begins, for AppendPhase(); nullptr while phases
  // are not open yet. Takes no lock a reader takes.
  std::shared_ptr<const PhaseBoundary> EndPhaseLocked(
      const PublishedSwitch& published, int64_t next_switch_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // EndPhaseLocked() at nice -20, then AppendPhase() at real time, for a
  // caller that published at real time and put its priority back.
  void EndPhaseAfterPublish(const PublishedSwitch& published,
                            int64_t next_switch_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // The first phase: `first` (its at_ns set, its counters zero; made
  // beforehand, so that opening it only fills it in) with the strategy in
  // force and the devices' `device`; phases are open from then on.
  void OpenFirstPhaseLocked(std::shared_ptr<PhaseBoundary> first,
                            const DeviceCounters& device)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_, mu_);
  // Makes `phase` (when not null) the last one readers see.
  void AppendPhase(std::shared_ptr<const PhaseBoundary> phase)
      ABSL_LOCKS_EXCLUDED(mu_);
  ThreadSnapshot TotalsNow() const;
  // The counts that end the phase before `published`: each submitter's
  // when it took that generation up (PhaseBoundary), waited for; a thread
  // not there by `deadline_ns` (CLOCK_MONOTONIC) is read as it stands, and
  // the first such one described in `late_take_up`.
  ThreadSnapshot PhaseBoundaryTotals(const PublishedSwitch& published,
                                     int64_t deadline_ns,
                                     std::string* late_take_up)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // The report's note on late boundaries; empty when there were none.
  static std::string LateTakeUpNote(const PhaseBoundaries& phases);
  // One walk of /proc/self/task for the io-wq and SQPOLL CPU of every
  // submitter, before their Snapshot()s read it.
  void SampleIoWorkers() const;
  // At the measured window's start: every submitter's CPU so far, which
  // snapshots leave out (SubmitterThread::MarkCpuBaseline).
  void MarkCpuBaselines();
  // /proc/stat's per-CPU counters now; empty when unreadable.
  static std::vector<CpuTicks> CpuTicksNow();
  void FillErrorSites(WorkloadSnapshot* snapshot) const;
  void FillGroups(WorkloadSnapshot* snapshot) const;
  // Snapshot()'s steps. What it reads under mu_ (the split strategy and
  // SLO go straight into `snapshot`).
  struct LockedState {
    bool stopped_by_user = false;
    bool aborted = false;
    bool precondition_failed = false;
    PhaseBoundaries phases;
    DeviceCounters device_now;
    std::string ab_wait_note;
    // /proc/stat at the measured window's start and end (empty: unread or
    // still running).
    std::vector<CpuTicks> start_ticks;
    std::vector<CpuTicks> end_ticks;
  };
  LockedState ReadLockedState(WorkloadSnapshot* snapshot) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Every submitter's counters, their total and the ring; returns the
  // latest reap (CLOCK_MONOTONIC ns).
  int64_t FillThreads(WorkloadSnapshot* snapshot) const;
  // The fatal error, else the first error; returns whether one was fatal.
  bool FillError(WorkloadSnapshot* snapshot) const;
  void FillVerify(WorkloadSnapshot* snapshot) const;
  // The state at `now`, from a snapshot filled but for its state.
  WorkloadState StateOf(const WorkloadSnapshot& snapshot,
                        const LockedState& locked, bool finished, bool started,
                        bool fatal, int64_t now) const;
  // A/B: every strategy's full slices paired with the first strategy's, in
  // order, into its paired ratio, interval and verdict.
  void PairAbSlices(const std::vector<PhaseRate>& rates,
                    WorkloadSnapshot* snapshot) const;
  // Once finished: every submitter's buffer placement, merged.
  void FillBufferPlacement(BufferPlacement* placement) const;
  // spec.ab_strategies: switches to the next one at every slice's instant.
  void RunAbSchedule();
  // Keeps the first refusal of RunAbSchedule()'s real-time wait for the
  // report's notes.
  void NoteAbWaitRefused(const absl::Status& refusal) ABSL_LOCKS_EXCLUDED(mu_);
  // How long before an instant WaitForInstant() stops sleeping and polls.
  int64_t SwitchPollNs() const;
  // Sleeps until shortly before `when_ns` (CLOCK_MONOTONIC), then polls
  // the clock; false once the workload ended.
  bool WaitForInstant(int64_t when_ns);
  // Waits until `when_ns` (CLOCK_MONOTONIC); false once the workload ended.
  bool WaitUntil(int64_t when_ns);
  // spec.slo: steps through the search (slo_search.h) on the driver thread,
  // then stops the workload (state finished).
  void RunSloSearch();
  // Publishes `rate` (I/Os per second over the workload; 0: closed loop),
  // lets it settle and measures one step.
  internal::SloStepMeasure MeasureSloStep(double rate);
  // Phases (phase_report.h) from `measure_start_ns` and, in A/B mode, the
  // medians and pairs.
  void FillPhases(const PhaseBoundaries& phases,
                  const DeviceCounters& device_now, int64_t measure_start_ns,
                  int64_t end_ns, WorkloadSnapshot* snapshot) const;
  // Cumulative counters of the distinct devices under the targets.
  DeviceCounters ReadDevices() const;
  // The series thread: from the start of the measured window, the totals
  // once per spec.series_interval into series_ (model/series_builder.h),
  // until the end or the workload finishes. Off the hot path: it reads the
  // submitters' single-writer counters as Snapshot() does.
  void RecordSeries();
  // spec.steady_state: checks the tick's interval `point` (ending at
  // `at_ns`, with every thread's totals `threads` then); at attainment
  // stops the workload (mode stop) or opens the measured window (gate).
  void CheckSteadyState(const SeriesPoint& point, int64_t at_ns,
                        std::vector<ThreadSnapshot> threads)
      ABSL_LOCKS_EXCLUDED(series_mu_, mu_, switch_mu_);
  bool Gated() const {
    return spec_.spec.steady_state.enabled &&
           spec_.spec.steady_state.mode == SteadyStateMode::kGate;
  }
  // The series (from the raw totals) and steady state's result; in gate
  // mode then rebases the totals on attainment (steady_gate.h) and sets
  // `measure_start` to it. False while a gate has not opened.
  bool FillSeriesAndGate(bool started, int64_t end, int64_t* measure_start,
                         WorkloadSnapshot* snapshot) const
      ABSL_LOCKS_EXCLUDED(series_mu_);
  // Every submitter's counters now, in thread order.
  std::vector<ThreadSnapshot> ThreadTotalsNow() const;

  const ResolvedSpec spec_;
  std::unique_ptr<SharedRequestPool<internal::Request>> shared_requests_;
  internal::SubmitterControl control_;
  std::vector<std::unique_ptr<internal::SubmitterThread>> submitters_;
  std::vector<std::thread> threads_;
  std::vector<int> fds_;
  absl::Time start_time_;
  std::atomic<int> running_threads_{0};
  // Set (release) once Release() has written the measured window; until
  // then control_.measure_start_ns and end_ns are not read by others.
  std::atomic<bool> started_{false};
  // Stop, Abort or destruction: sleeping control threads give up.
  std::atomic<bool> cancel_{false};
  std::atomic<int64_t> scheduled_ns_{0};  // Go()'s instant; 0 for Start()
  // How long after Go()'s instant the gate opened; 0 when it opened before.
  std::atomic<int64_t> gate_late_ns_{0};
  absl::Notification finished_;
  absl::Mutex join_mu_;  // serializes joins in Wait(); never held by readers
  // Serializes split switches and the opening of the first phase; taken
  // before mu_ and never by readers (Snapshot()), so that a switch lands
  // on its instant however long a reader holds mu_.
  PiMutex switch_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  bool phases_open_ ABSL_GUARDED_BY(switch_mu_) = false;
  // Phase boundaries made so far (the first phase's start included).
  size_t phase_boundaries_ ABSL_GUARDED_BY(switch_mu_) = 0;
  bool switch_pending_ ABSL_GUARDED_BY(switch_mu_) = false;
  std::thread switcher_;  // ScheduleSplitStrategy's; guarded by switch_mu_
  // Readers' lock. With priority inheritance: the driver appends phases
  // and the start gate releases at real-time priority, and a reader
  // holding it then runs at that priority until it unlocks.
  mutable PiMutex mu_;
  // Set by RequestStop() (under mu_) or RequestStopFromSignal() (which
  // cannot lock): atomic for the latter.
  std::atomic<bool> stopped_by_user_{false};
  bool released_ ABSL_GUARDED_BY(mu_) = false;  // Go() or Start() accepted
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  PhaseBoundaries phases_ ABSL_GUARDED_BY(mu_);
  // Why A/B switches wait at the normal policy; empty when they do not.
  std::string ab_wait_note_ ABSL_GUARDED_BY(mu_);
  SloSummary slo_ ABSL_GUARDED_BY(mu_);  // spec.slo: the search so far
  DeviceCounters final_device_ ABSL_GUARDED_BY(mu_);
  bool have_final_device_ ABSL_GUARDED_BY(mu_) = false;
  // /proc/stat as measuring started and as the last submitter ended (the
  // snapshot's other_cpu_share); empty when not (yet) read or unreadable.
  std::vector<CpuTicks> start_cpu_ticks_ ABSL_GUARDED_BY(mu_);
  std::vector<CpuTicks> final_cpu_ticks_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> device_stat_paths_;
  std::thread driver_;
  // RecordSeries() beside an A/B schedule or SLO search (Drive() runs it
  // itself otherwise): started by the driver, joined after it.
  std::thread series_thread_;
  // Collected once the targets were resolved (host/environment.h); the
  // ring features are added per snapshot.
  Environment environment_;
  mutable absl::Mutex series_mu_;
  SeriesBuilder series_ ABSL_GUARDED_BY(series_mu_);
  // spec.steady_state's checker, fed by RecordSeries(); null without one.
  std::unique_ptr<SteadyStateChecker> steady_ ABSL_GUARDED_BY(series_mu_);
  SteadyGate gate_ ABSL_GUARDED_BY(series_mu_);  // gate mode only
  std::vector<std::string> notes_;  // fixed once Launch() returns
  CpuRegistration cpu_registration_;  // held host-wide until destruction
  std::vector<std::unique_ptr<VerifyStateFile>> verify_states_;
  internal::VerifySetup verify_setup_;
  EngineLimits limits_;  // as validated against; preconditioning's too
  std::atomic<bool> preconditioning_{false};
  PreconditionSummary precondition_ ABSL_GUARDED_BY(mu_);
  // Why preconditioning failed: the workload then ends kFailed with it.
  bool precondition_failed_ ABSL_GUARDED_BY(mu_) = false;
  FirstError precondition_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_WORKLOAD_H_

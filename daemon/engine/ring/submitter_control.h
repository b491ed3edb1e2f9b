// The workload-wide control block its submitters (submitter.h) read: the
// run's window, the start gate, stop, the first and fatal errors, the error
// sites, the shared request pool and the live split and rate generations.
// Workload owns and writes it; submitters write only what they claim.
//
//   SubmitterControl control;
//   control.end_ns = ...;  control.go.Open();   // Workload
//   if (control.stop.load(std::memory_order_relaxed)) ...  // a submitter
#ifndef BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_CONTROL_H_
#define BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_CONTROL_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "daemon/engine/host/io_worker_cpu.h"
#include "daemon/engine/ring/request.h"
#include "daemon/engine/ring/request_cache.h"
#include "daemon/engine/ring/start_gate.h"
#include "daemon/engine/shape/rate_pacer.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/verify/verify_tracker.h"
#include "model/slo_search.h"
#include "model/snapshot.h"
#include "model/split_strategy.h"

namespace blkperf::internal {

// One failed I/O's site, claimed by index by the submitter that saw it.
struct ErrorSiteSlot {
  int errno_value = 0;
  uint16_t target = 0;
  uint64_t offset = 0;
  std::atomic<bool> ready{false};  // release-stored once the fields are set
};

// The workload-wide control block the submitters read (and only Workload
// writes, apart from `first_error_claimed`).
struct alignas(64) SubmitterControl {
  // Set by Workload before `go`: absolute CLOCK_MONOTONIC nanoseconds.
  int64_t measure_start_ns = 0;
  int64_t end_ns = 0;  // 0: no time limit
  // Opened once, by Workload, to release every submitter at the same moment.
  StartGate go;
  // Set before `go`: 0 starts I/O as soon as the gate opens; otherwise each
  // submitter leaves the gate a little ahead and waits for this instant of
  // CLOCK_MONOTONIC itself (start_instant.h), on its own CPU.
  int64_t start_at_ns = 0;
  std::atomic<bool> abort{false};  // setup failed elsewhere: exit without I/O
  alignas(64) std::atomic<bool> stop{false};  // read once per loop turn
  // The submitter whose error stops the workload claims this first.
  alignas(64) std::atomic<bool> first_error_claimed{false};
  FirstError first_error;  // written by the claimant, then published
  std::atomic<bool> first_error_published{false};
  // An error that ends the workload even under continue_on_error: an I/O
  // outstanding past io_timeout, or a failed io_uring_enter. Claimed,
  // written, then published, like first_error.
  alignas(64) std::atomic<bool> fatal_claimed{false};
  FirstError fatal_error;
  std::atomic<bool> fatal_published{false};
  // The first kMaxErrorSites failed I/Os: a submitter claims slot
  // `error_sites_claimed++` on its error path (never on a successful I/O).
  std::atomic<uint32_t> error_sites_claimed{0};
  std::array<ErrorSiteSlot, kMaxErrorSites> error_sites;
  SharedRequestPool<Request>* shared_requests = nullptr;
  // Pieces per logical I/O the rings are sized for (every strategy a
  // workload may switch to must fit).
  uint32_t piece_capacity = 1;
  // Live split-strategy switching: Workload writes split_strategies[g] and
  // then publishes g with a release store; submitters poll the generation
  // once per loop turn (one relaxed load of a read-mostly line) and rebuild
  // their splitters when it changes. Entries are never rewritten.
  alignas(64) std::atomic<uint32_t> split_generation{0};
  std::array<SplitStrategy, kMaxAbSwitches + 1> split_strategies{};
  // spec.verify: the generation tables (owned by Workload).
  const VerifySetup* verify = nullptr;
  // Open-loop rates of the shaped loop, per thread, by generation. Entry 0
  // is unused (each thread starts at its own group's rate); later ones are
  // the SLO search's steps, the same for every thread. Workload writes
  // rates[g] then publishes g with a release store; submitters poll it
  // once per loop turn and restart their schedule when it changes.
  alignas(64) std::atomic<uint32_t> rate_generation{0};
  std::array<RatePacer::Rate, kMaxSloSteps + 1> rates{};
  // CPU of the submitters' io-wq and SQPOLL threads: sampled by whoever
  // takes a snapshot (SampleIoWorkers, once for all submitters) and by each
  // submitter before its ring goes; never on the I/O path.
  mutable IoWorkerCpu io_worker_cpu;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_SUBMITTER_CONTROL_H_

// SubmitterThread's set-up and tear-down: pinning, buffers, requests and
// caches, the ring (its flags' fallback), registrations, offsets and the
// shaped loop's generators; the splitter plans. Runs once per thread,
// before the start gate.

#include "daemon/engine/ring/submitter.h"

#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "daemon/engine/host/host_capabilities.h"
#include "daemon/engine/host/process_threads.h"
#include "daemon/engine/ring/completion_tag.h"
#include "daemon/engine/ring/start_instant.h"
#include "daemon/engine/ring/wait_tick.h"

namespace blkperf::internal {

namespace {

absl::Status ErrnoStatus(int error_number, absl::string_view what) {
  return absl::ErrnoToStatus(error_number, what);
}

}  // namespace

std::string BatchLatencyNote(uint32_t complete_batch) {
  return absl::StrCat(
      "latency_mode batch: the enter that submits a batch also waits for "
      "complete_batch=", complete_batch, " completions, so lat's parts are "
      "batch_wait (that whole enter) and after_wait (from its return to the "
      "reap, 0 for I/Os done during the wait), not fio's slat and clat; lat, "
      "their sum, is exact. latency_mode=per_io measures slat and clat as "
      "fio does");
}

DeviceSplitLimits SplitLimitsFor(const TargetInfo& target) {
  const QueueLimits& q = target.limits;
  DeviceSplitLimits limits;
  limits.logical_block_size =
      std::max<uint32_t>(512, target.logical_block_size);
  limits.max_io_bytes = uint64_t{q.max_sectors_kb} * 1024;
  limits.max_segments = q.max_segments;
  limits.max_segment_size = q.max_segment_size;
  limits.chunk_bytes = uint64_t{q.chunk_sectors} * 512;
  limits.virt_boundary_mask = q.virt_boundary_mask;
  return limits;
}

absl::StatusOr<uint32_t> PlanSplitters(const ResolvedSpec& spec,
                                       const SplitStrategy& strategy,
                                       unsigned page_shift,
                                       std::vector<Splitter>* splitters) {
  // Offsets are multiples of the alignment and buffers of the slot size,
  // and an I/O of one of the sizes may follow another: the largest power of
  // two dividing all of them bounds where an I/O can start.
  uint32_t alignment = spec.max_block_size;
  for (const GroupShape& g : spec.groups) {
    alignment |= g.alignment | g.max_block_size | g.min_block_size;
    for (const auto* mix : {&g.read_bssplit, &g.write_bssplit}) {
      for (const BlockSizeShare& share : *mix) alignment |= share.block_size;
    }
  }
  uint32_t pieces = 1;
  for (const TargetInfo& target : spec.targets) {
    BLKPERF_ASSIGN_OR_RETURN(
        Splitter splitter,
        Splitter::Create(strategy, SplitLimitsFor(target), page_shift));
    pieces = std::max(pieces, splitter.MaxPieces(spec.max_block_size,
                                                 alignment & -alignment));
    if (splitters != nullptr) splitters->push_back(splitter);
  }
  return pieces;
}

SubmitterThread::SubmitterThread(const ResolvedSpec& spec, int index,
                                 std::vector<int> fds,
                                 SubmitterControl* control)
    : spec_(spec),
      group_(spec.groups[spec.thread_group[index]]),
      index_(index),
      cpu_(spec.spec.cpus[index]),
      fds_(std::move(fds)),
      control_(control),
      queue_depth_(group_.queue_depth),
      submit_batch_(group_.submit_batch),
      complete_batch_(group_.complete_batch),
      block_size_(group_.max_block_size),  // the buffer slot size
      io_length_(spec.spec.nop ? 0 : block_size_),
      fixed_buffers_(spec.spec.fixed_buffers),
      io_mode_(IoModeOf(spec.spec)),
      prep_(OpTrims(group_.op)
                ? TrimFunctionFor(spec.targets[0].kind ==
                                  TargetKind::kBlockDevice)
                : PrepFunctionFor(io_mode_)),
      // A NOP names no file (Workload notes that registered_files is moot).
      registered_files_(spec.spec.registered_files && !spec.spec.nop),
      sqe_flags_(static_cast<uint8_t>(
          (registered_files_ ? IOSQE_FIXED_FILE : 0) |
          (spec.spec.force_async ? IOSQE_ASYNC : 0))),
      latency_tracking_(spec.spec.latency_tracking),
      latency_mode_(spec.spec.latency_mode),
      io_timeout_ns_(absl::ToInt64Nanoseconds(spec.spec.io_timeout)),
      verify_(spec.spec.verify),
      continue_on_error_(spec.spec.continue_on_error),
      read_percent_(group_.read_percent),
      rng_(XorshiftState(spec.spec.seed, index)) {
  // A mark never allocates on the submitter: room for every error slot.
  phase_mark_.errors.reserve(kErrorSlots);
}

SubmitterThread::~SubmitterThread() {
  TearDownRing();
}

absl::Status SubmitterThread::Setup() {
  BLKPERF_RETURN_IF_ERROR(PinToCpu());
  BLKPERF_RETURN_IF_ERROR(AllocateBuffers());
  BLKPERF_RETURN_IF_ERROR(AllocateRequests());
  NoteBatchLatency();
  BLKPERF_RETURN_IF_ERROR(SizeRing());
  BLKPERF_RETURN_IF_ERROR(SetUpPolledRing());
  BLKPERF_RETURN_IF_ERROR(WarmUpRing());
  BLKPERF_RETURN_IF_ERROR(StartWaitTick());
  BLKPERF_RETURN_IF_ERROR(SetUpOffsets());
  SetIoQuota();
  if (verify_) verifier_ = std::make_unique<VerifyTracker>(*control_->verify);
  ring_setup_.fixed_buffers = fixed_buffers_;
  ring_setup_.registered_files = registered_files_;
  ring_setup_.sqpoll = spec_.spec.sqpoll;
  // The TSC's rate is measured once per process, in the first Create: here
  // rather than after the start (turn_clock.h). Run makes its own clock.
  ring_setup_.clock = std::string(TurnClock::Create().source_name());
  return absl::OkStatus();
}

absl::Status SubmitterThread::PinToCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu_, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cpus[", index_, "] ", cpu_,
                                           ": sched_setaffinity"));
  }
  return absl::OkStatus();
}

absl::Status SubmitterThread::AllocateRequests() {
  // Request objects and buffer slots, allocated here so the hot path never
  // does. Both pools hold queue_depth entries: one per in-flight I/O.
  requests_ = std::make_unique<Request[]>(queue_depth_);
  free_buffers_ = BufferSlotQueue(queue_depth_);
  batch_.assign(submit_batch_, nullptr);
  by_buffer_.assign(queue_depth_, nullptr);
  free_scratch_.assign(queue_depth_, 0);
  turn_of_.assign(queue_depth_, 0);
  turns_ = std::make_unique<TurnLog>(queue_depth_);
  std::vector<Request*> objects(queue_depth_);
  for (uint32_t i = 0; i < queue_depth_; ++i) objects[i] = &requests_[i];
  if (!CompletionTag<Request>::Taggable(&requests_[0]) ||
      !CompletionTag<Request>::Taggable(&requests_[queue_depth_ - 1])) {
    return absl::InternalError(
        "request objects were allocated above 2^48 and cannot be tagged "
        "into user_data (completion_tag.h)");
  }
  if (spec_.spec.request_cache == RequestCacheMode::kPerCpu) {
    // The thread's own requests only (OwnsRequests): request i keeps buffer
    // slot i for good, and is in flight whenever it is not in the cache.
    for (uint32_t i = 0; i < queue_depth_; ++i) {
      requests_[i].buffer = static_cast<uint16_t>(i);
      requests_[i].length = io_length_;  // the plain loop's, for good
    }
    per_cpu_cache_ = std::make_unique<PerCpuRequestCache<Request>>(
        queue_depth_, control_->shared_requests);
    per_cpu_cache_->Fill(objects.data(), objects.size());
  } else {
    control_->shared_requests->PutBatch(objects.data(), objects.size());
    shared_cache_ =
        std::make_unique<SharedRequestCache<Request>>(control_->shared_requests);
  }
  return absl::OkStatus();
}

void SubmitterThread::NoteBatchLatency() {
  // Batch mode's slat and clat are not fio's (io_turn.h): say so wherever
  // the snapshot goes (text, JSON and API notes). Open-loop threads take
  // per_io turns whatever the mode, so they carry no such note.
  const bool open_loop_thread = group_.rate_iops != 0 ||
                                group_.rate_bw != 0 || spec_.spec.slo.enabled;
  batch_turns_ = latency_tracking_ && latency_mode_ == LatencyMode::kBatch &&
                 !open_loop_thread;
  if (batch_turns_) notes_.push_back(BatchLatencyNote(complete_batch_));
}

absl::Status SubmitterThread::SizeRing() {
  // The ring holds every piece of every in-flight I/O, for any strategy
  // the workload may switch to (Workload checked the product's bound).
  if (uint64_t{queue_depth_} * control_->piece_capacity > kMaxRingEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "queue_depth ", queue_depth_, " x ", control_->piece_capacity,
        " pieces per I/O exceeds the ring's maximum of ", kMaxRingEntries,
        " entries"));
  }
  ring_entries_ = RingEntries(queue_depth_, control_->piece_capacity);
  BLKPERF_RETURN_IF_ERROR(ApplyStrategy(
      control_->split_strategies[control_->split_generation.load()]));
  if (io_mode_ == IoMode::kVectored) {
    piece_iovecs_ = IovecRing(2 * ring_entries_);
  }
  return absl::OkStatus();
}

absl::Status SubmitterThread::SetUpPolledRing() {
  const bool want_poll = spec_.spec.polled != PollMode::kOff;
  BLKPERF_RETURN_IF_ERROR(SetUpRing(want_poll));
  BLKPERF_RETURN_IF_ERROR(RegisterResources());
  // Pages are faulted in as t/io_uring's are (io_buffers.h): fixed buffers
  // by the registration above, then filled; plain buffers that only ever
  // receive reads by the kernel on their first read. Writes carry data.
  if (fixed_buffers_ || read_percent_ < 100) io_buffers_.Fill();
  if (!want_poll) return absl::OkStatus();
  BLKPERF_ASSIGN_OR_RETURN(bool can_poll, ProbePolling());
  if (can_poll) return absl::OkStatus();
  std::vector<std::string> names;
  for (const TargetSpec& t : spec_.spec.targets) names.push_back(t.path);
  const std::string who = absl::StrJoin(names, ", ");
  if (spec_.spec.polled == PollMode::kOn) {
    return absl::FailedPreconditionError(absl::StrCat(
        "polled: on, but ", who,
        " cannot do polled I/O (a polled probe read completed with "
        "EOPNOTSUPP: the driver has no poll queues); use polled: auto "
        "or off"));
  }
  notes_.push_back(absl::StrCat(
      "polled: auto fell back to interrupt-driven completions: ", who,
      " cannot do polled I/O (probe read returned EOPNOTSUPP)"));
  TearDownRing();
  BLKPERF_RETURN_IF_ERROR(SetUpRing(false));
  return RegisterResources();
}

void SubmitterThread::SetIoQuota() {
  const uint64_t total = spec_.spec.io_count;
  const uint32_t threads = spec_.spec.threads;
  io_quota_ = total / threads + (static_cast<uint64_t>(index_) < total % threads);
  if (total != 0 && io_quota_ == 0) {
    notes_.push_back(absl::StrCat("thread ", index_,
                                  " has no I/O: io_count < threads"));
  }
}

absl::Status SubmitterThread::ApplyStrategy(const SplitStrategy& strategy) {
  splitters_.clear();  // capacity stays: no allocation after the first time
  BLKPERF_ASSIGN_OR_RETURN(
      max_pieces_, PlanSplitters(spec_, strategy, page_shift_, &splitters_));
  split_none_ = strategy.kind == SplitStrategy::Kind::kNone;
  return absl::OkStatus();
}

absl::Status SubmitterThread::AllocateBuffers() {
  // A NOP reads and writes no buffer: one page stands for every slot
  // (slot_bytes_ 0), whatever queue_depth x block size would come to (256
  // threads at qd 4096 mapped, faulted and registered 4 GiB before).
  const bool nop = spec_.spec.nop;
  slot_bytes_ = nop ? 0 : block_size_;
  BLKPERF_ASSIGN_OR_RETURN(
      io_buffers_,
      IoBuffers::Create({.slots = nop ? 1 : queue_depth_,
                         .slot_bytes = nop ? static_cast<uint32_t>(
                                                 sysconf(_SC_PAGESIZE))
                                           : block_size_,
                         // Plain buffers register nothing: no layout to
                         // choose (or note).
                         .layout = fixed_buffers_ ? spec_.spec.buffer_layout
                                                  : BufferLayout::kPerSlot,
                         .huge_pages = spec_.spec.huge_pages,
                         .seed = spec_.spec.seed},
                        &notes_));
  buffers_ = io_buffers_.base();
  buf_index_mask_ = io_buffers_.buf_index_mask();
  page_shift_ = io_buffers_.page_shift();
  return absl::OkStatus();
}

absl::Status SubmitterThread::SetUpRing(bool polled) {
  unsigned base = polled ? IORING_SETUP_IOPOLL : 0;
  io_uring_params params{};
  if (spec_.spec.sqpoll) {
    base |= IORING_SETUP_SQPOLL;
    if (spec_.spec.sqpoll_cpu >= 0) {
      base |= IORING_SETUP_SQ_AFF;
      params.sq_thread_cpu = static_cast<unsigned>(spec_.spec.sqpoll_cpu);
    }
    params.sq_thread_idle = 1000;  // ms before the poller sleeps
  }
  // Most capable first; each fallback drops one optional flag (fio's
  // fio_ioring_queue_init does the same). DEFER_TASKRUN excludes SQPOLL.
  std::vector<unsigned> candidates;
  if (!spec_.spec.sqpoll) {
    candidates.push_back(base | IORING_SETUP_SINGLE_ISSUER |
                         IORING_SETUP_DEFER_TASKRUN);
    candidates.push_back(base | IORING_SETUP_SINGLE_ISSUER |
                         IORING_SETUP_COOP_TASKRUN);
    candidates.push_back(base | IORING_SETUP_COOP_TASKRUN);
  } else {
    candidates.push_back(base | IORING_SETUP_SINGLE_ISSUER);
  }
  candidates.push_back(base);
  int ret = -EINVAL;
  for (unsigned flags : candidates) {
    io_uring_params p = params;
    p.flags = flags;
    ret = io_uring_queue_init_params(ring_entries_, &ring_, &p);
    if (ret == 0) {
      ring_ready_ = true;
      // NOP preps write only what a NOP reads (io_prep.h): every other
      // field of every SQE starts, and stays, zero.
      memset(ring_.sq.sqes, 0, sizeof(io_uring_sqe) * ring_.sq.ring_entries);
      polled_ = polled;
      ring_setup_.setup_flags = SetupFlagNames(flags);
      ring_setup_.polled = polled;
      ring_setup_.sq_entries = ring_.sq.ring_entries;
      ring_setup_.cq_entries = ring_.cq.ring_entries;
      ring_setup_.pieces_per_io = control_->piece_capacity;
      return absl::OkStatus();
    }
    if (ret != -EINVAL) break;
  }
  return ErrnoStatus(-ret, absl::StrCat("io_uring_queue_init_params(",
                                        ring_entries_, " entries)"));
}

absl::Status SubmitterThread::RegisterResources() {
  if (fixed_buffers_) {
    const std::vector<iovec>& iovecs = io_buffers_.registration();
    const int ret =
        io_uring_register_buffers(&ring_, iovecs.data(), iovecs.size());
    if (ret < 0) {
      return ErrnoStatus(-ret, absl::StrCat("fixed_buffers: registering ",
                                            iovecs.size(), " buffers (",
                                            BufferLayoutName(
                                                io_buffers_.layout()),
                                            ")"));
    }
  }
  if (registered_files_) {
    const int ret = io_uring_register_files(&ring_, fds_.data(), fds_.size());
    if (ret < 0) {
      return ErrnoStatus(-ret, "registered_files: registering the targets");
    }
  }
  // Saves the fdget/fdput of the ring itself on every io_uring_enter.
  ring_setup_.registered_ring_fd = io_uring_register_ring_fd(&ring_) == 1;
  return absl::OkStatus();
}

absl::Status SubmitterThread::WarmUpRing() {
  // One NOP through the ring before the start: the kernel's first request
  // on a ring allocates and initializes what later ones reuse, which would
  // otherwise delay the first real submission (and, on a CPU shared with
  // other submitters, theirs). No target I/O.
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return absl::InternalError("warm-up: no free SQE");
  io_uring_prep_nop(sqe);
  int ret = io_uring_submit_and_wait(&ring_, 1);
  if (ret < 0) return ErrnoStatus(-ret, "warm-up NOP: io_uring_enter");
  io_uring_cqe* cqe = nullptr;
  ret = io_uring_wait_cqe(&ring_, &cqe);
  if (ret < 0) return ErrnoStatus(-ret, "warm-up NOP: waiting");
  io_uring_cqe_seen(&ring_, cqe);
  return absl::OkStatus();
}

absl::Status SubmitterThread::StartWaitTick() {
  // An IOPOLL wait polls instead of sleeping, and its enter ignores a
  // timeout too; an SQPOLL ring would report a refused tick late.
  if (!polled_ && !spec_.spec.sqpoll) {
    BLKPERF_ASSIGN_OR_RETURN(wait_tick_, ArmWaitTick(&ring_, kWaitTickNs));
    if (!wait_tick_) {
      notes_.push_back(absl::StrCat(
          "thread ", index_,
          ": the kernel refused a multishot timeout (IORING_TIMEOUT_MULTISHOT, "
          "Linux 6.4), so every waiting io_uring_enter passes a timeout "
          "(ring.wait_bound enter_timeout)"));
    }
  }
  ring_setup_.wait_bound = wait_tick_ ? "ring_tick" : "enter_timeout";
  return absl::OkStatus();
}

absl::StatusOr<bool> SubmitterThread::ProbePolling() {
  // A read is harmless on any target; its result tells whether the driver
  // can complete polled I/O (-EOPNOTSUPP when it has no poll queues).
  for (uint16_t t = 0; t < fds_.size(); ++t) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    const uint32_t length = std::max<uint32_t>(
        512, spec_.targets[t].logical_block_size);
    if (fixed_buffers_) {
      io_uring_prep_read_fixed(sqe, registered_files_ ? t : fds_[t], buffers_,
                               length, 0, 0);
    } else {
      io_uring_prep_read(sqe, registered_files_ ? t : fds_[t], buffers_,
                         length, 0);
    }
    if (registered_files_) sqe->flags |= IOSQE_FIXED_FILE;
    int ret = io_uring_submit_and_wait(&ring_, 1);
    if (ret < 0) return ErrnoStatus(-ret, "polled probe: io_uring_enter");
    io_uring_cqe* cqe = nullptr;
    ret = io_uring_wait_cqe(&ring_, &cqe);
    if (ret < 0) return ErrnoStatus(-ret, "polled probe: waiting");
    const int res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    if (res == -EOPNOTSUPP) return false;
    if (res < 0) {
      return ErrnoStatus(-res, absl::StrCat("polled probe read of ",
                                            spec_.spec.targets[t].path));
    }
  }
  return true;
}

void SubmitterThread::TearDownRing() {
  if (!ring_ready_) return;
  // Exiting the ring unregisters buffers and files, but the kernel finishes
  // that in a workqueue after io_uring_queue_exit returns: a block device
  // opened with O_EXCL would stay claimed for a while after the workload
  // ends, and a next write workload on it would get EBUSY. Unregistering
  // the files first drops the ring's references before this returns.
  if (registered_files_) io_uring_unregister_files(&ring_);
  io_uring_queue_exit(&ring_);
  ring_ready_ = false;
}

absl::Status SubmitterThread::SetUpOffsets() {
  const uint32_t in_group = static_cast<uint32_t>(index_) - group_.first_thread;
  std::vector<uint64_t> sizes;
  for (const TargetInfo& target : spec_.targets) {
    sizes.push_back(target.size_bytes);
  }
  offsets_ = OffsetCursor({.target_sizes = sizes,
                           .block_size = block_size_,
                           .alignment = group_.alignment,
                           .random = OpIsRandom(group_.op),
                           .thread_in_group = in_group,
                           .group_threads = group_.threads});
  if (!group_.shaped) return absl::OkStatus();
  BLKPERF_ASSIGN_OR_RETURN(issuer_,
                           ShapedIssuer::Create(group_, sizes, in_group));
  if (group_.rate_iops != 0 || group_.rate_bw != 0 || spec_.spec.slo.enabled) {
    // An open-loop thread sleeps until intended times: wake at them, not
    // up to the default 50 us of timer slack late.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  }
  return absl::OkStatus();
}

}  // namespace blkperf::internal

// The shaped loop's issue decisions (submitter.h): for each I/O its kind,
// length, offset and intended time, from the group's generators
// (io_shaper.h) and the thread's open-loop schedule (rate_pacer.h); the
// sync that sync_every asks for after that many writes; and which I/Os a
// full queue made late. The loop owns the requests, the ring and the clock;
// this owns what the I/Os are and when they are due. Per I/O: table draws
// and a few multiplies, no allocation, lock or call.
//
//   absl::StatusOr<ShapedIssuer> issuer =
//       ShapedIssuer::Create(group, target_sizes, thread_in_group);
//   issuer->Start(ShapedIssuer::ThreadRate(group), now_ns);
//   while (issuer->Due(now_ns) && ...) {
//     req->target = next_target;       // a sync may replace it
//     issuer->Pick(req, now_ns, rng);  // kind, length, offset, intended_ns
//   }
//   if (queue_was_full) issuer->MarkQueueFull(reap_ns);
#ifndef BLKPERF_DAEMON_ENGINE_RING_SHAPED_ISSUER_H_
#define BLKPERF_DAEMON_ENGINE_RING_SHAPED_ISSUER_H_

#include <cstdint>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/status/statusor.h"
#include "daemon/engine/ring/request.h"
#include "daemon/engine/ring/xorshift.h"
#include "daemon/engine/shape/io_shaper.h"
#include "daemon/engine/shape/rate_pacer.h"
#include "model/group_shape.h"

namespace blkperf::internal {

class ShapedIssuer {
 public:
  // `target_sizes`: bytes of each target; `thread_in_group`: the thread's
  // 0-based index among its group's. InvalidArgument as IoShaper::Create.
  static absl::StatusOr<ShapedIssuer> Create(
      const GroupShape& group, const std::vector<uint64_t>& target_sizes,
      uint32_t thread_in_group);

  // One thread's share of its group's rate (a closed loop when it has none).
  static RatePacer::Rate ThreadRate(const GroupShape& group);

  ShapedIssuer() = default;

  // Starts the schedule at `rate` with the first I/O intended at `now_ns`,
  // as rate generation 0. Allocates (RatePacer::Reset): not per I/O.
  void Start(const RatePacer::Rate& rate, int64_t now_ns) {
    TakeRate(0, rate, now_ns);
  }
  // A new rate, published as `generation`, restarts the schedule at
  // `now_ns` (the SLO search's steps). Allocates, as Start.
  void TakeRate(uint32_t generation, const RatePacer::Rate& rate,
                int64_t now_ns) {
    rate_generation_ = generation;
    pacer_.Reset(rate, now_ns);
    open_loop_ = pacer_.open_loop();
  }
  uint32_t rate_generation() const { return rate_generation_; }
  // Paced by a rate (I/Os wait for their intended time) rather than closed.
  bool open_loop() const { return open_loop_; }

  // Whether the next Pick may be issued at `now_ns`: a pending sync at
  // once, an I/O once its intended time has come (always in closed loop).
  bool Due(int64_t now_ns) const {
    return sync_pending_ || pacer_.next_ns() <= now_ns;
  }
  // The intended time of the next I/O (the most negative time in closed
  // loop).
  int64_t next_ns() const { return pacer_.next_ns(); }

  // Fills `req` for the next I/O: a pending sync (kSyncIo on the target of
  // the write that made it due, length 0, never late), else a read or a
  // write (or trim) of the group's mix at an offset on `req->target`,
  // intended at the schedule's next time (open loop) or `now_ns` (closed),
  // late when that was no later than the last MarkQueueFull. Draws from
  // `rng`.
  void Pick(Request* req, int64_t now_ns, Xorshift& rng) {
    if (ABSL_PREDICT_FALSE(sync_pending_)) {
      sync_pending_ = false;
      req->kind = kSyncIo;
      req->is_write = true;
      req->target = sync_target_;
      req->offset = 0;
      req->length = 0;
      req->intended_ns = 0;
      req->late = 0;
      return;
    }
    req->is_write = shaper_.NextIsWrite(rng.Next());
    req->kind = req->is_write ? write_kind_ : uint8_t{kReadIo};
    req->length = shaper_.NextLength(req->is_write, rng.Next());
    const uint64_t choice = rng.Next();
    const uint64_t bucket = rng.Next();
    req->offset = shaper_.NextOffset(req->target, req->length, choice, bucket,
                                     rng.Next());
    // Closed loop: intended as it is prepared (no schedule to lag behind).
    req->intended_ns = open_loop_ ? pacer_.next_ns() : now_ns;
    req->late = open_loop_ & (req->intended_ns <= queue_full_seen_ns_);
    pacer_.Advance(rng.Next(), req->length);
    if (sync_every_ != 0 && req->kind == kWriteIo && --writes_to_sync_ == 0) {
      writes_to_sync_ = sync_every_;
      sync_pending_ = true;
      sync_target_ = req->target;
    }
  }

  // The reap stamp of a turn that waited with every slot taken: an I/O
  // intended at or before it and issued after it was due while the queue
  // was full, so it is late because of the queue depth.
  void MarkQueueFull(int64_t reap_ns) { queue_full_seen_ns_ = reap_ns; }

 private:
  IoShaper shaper_;
  RatePacer pacer_;
  bool open_loop_ = false;
  uint32_t rate_generation_ = 0;
  int64_t queue_full_seen_ns_ = 0;
  uint8_t write_kind_ = kWriteIo;  // kTrimIo for trim ops
  uint32_t sync_every_ = 0;        // 0: no syncs
  uint32_t writes_to_sync_ = 0;    // writes left before the next sync
  bool sync_pending_ = false;
  uint16_t sync_target_ = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_SHAPED_ISSUER_H_

// A submitter's logical I/O in flight (submitter.h): the object the request
// caches hand out and whose tagged pointer is each SQE's user_data.
//
//   Request* req = cache.Get();
//   req->offset = ...; req->length = ...; req->target = ...;
#ifndef BLKPERF_DAEMON_ENGINE_RING_REQUEST_H_
#define BLKPERF_DAEMON_ENGINE_RING_REQUEST_H_

#include <cstdint>

namespace blkperf::internal {

// What a Request is (the shaped loop's accounting; the plain loop only uses
// is_write).
enum IoKind : uint8_t { kReadIo = 0, kWriteIo = 1, kTrimIo = 2, kSyncIo = 3 };
inline constexpr int kIoKinds = 4;

// A logical I/O in flight. Lives in arrays sized at setup; the request caches
// hand out pointers to these, and the pointer, tagged (completion_tag.h), is
// the SQE's user_data. A whole I/O that completes in full is accounted from
// its tag alone, so only a piece, a failure, verify or the shaped loop reads
// the fields below at completion.
struct alignas(64) Request {
  uint64_t offset = 0;     // device offset of the logical I/O
  uint32_t length = 0;
  uint16_t target = 0;     // index into the workload's targets
  uint16_t buffer = 0;     // registered buffer slot of the submitter
  bool is_write = false;
  // 1, 0 and 0 whenever the request is free (a reap that reads the request
  // resets them; only a split I/O's Prepare sets pieces_left).
  uint32_t pieces_left = 1;
  int32_t result = 0;      // first failing piece's negative errno, else 0
  uint32_t done_bytes = 0; // bytes its completed pieces transferred
  uint32_t verify_value = 0;  // verify: VerifyTracker::Begin's result
  // Shaped loop only: its place in the open-loop schedule (rate_pacer.h),
  // its kind, and whether a full queue held it past that time.
  int64_t intended_ns = 0;
  uint8_t kind = kReadIo;
  uint8_t late = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_REQUEST_H_

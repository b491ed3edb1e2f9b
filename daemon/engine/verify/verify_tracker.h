// The submitter's side of verify: which write each block must hold, and the
// checks at both ends of an I/O. One VerifyTracker per submitter thread;
// Workload builds one VerifySetup (the per-target generation tables, mapped
// from verify_state.h) that all of them share.
//
//   // Prepare, before the SQE:
//   req->verify_entry = tracker.Begin(req->target, &req->offset,
//                                     req->is_write, buffer);
//   // Reap, once the I/O completed:
//   if (!tracker.End(req->target, req->offset, req->is_write,
//                    req->verify_entry, failed, buffer)) ...  // mismatch
//
// Ownership rule (nothing shared and written between submitter threads): a
// workload that writes with verify runs exactly one submitter thread
// (validation enforces it), and only that thread writes the tables; in a
// read-only run every thread only reads them. With writes, no two I/Os of
// one block are ever in flight together: Begin moves an I/O to the next
// block with none in flight (fio's serialize_overlap), so the generation a
// read expects is exact. Begin/End allocate nothing; a mismatch takes the
// out-of-line slow path (classification, record, optional dump).
#ifndef BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_TRACKER_H_
#define BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_TRACKER_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "base/single_writer.h"
#include "daemon/engine/verify/verify_block.h"
#include "model/snapshot.h"

namespace blkperf::internal {

struct VerifyTable {
  uint32_t* entries = nullptr;  // VerifyEntry bits (verify_state.h)
  uint64_t blocks = 0;
  uint64_t target_id = 0;
  std::string path;
};

// Built by Workload before the submitters start; read-only afterwards
// (the tables' entries excepted, see the ownership rule above).
struct VerifySetup {
  std::vector<VerifyTable> tables;  // one per target
  uint64_t seed = 0;
  uint32_t block_size = 0;
  bool track_in_flight = false;  // the workload writes
  std::string dump_dir;          // non-empty: dump the first bad blocks here
};

// Mismatches each thread reports in full (all are counted).
inline constexpr int kVerifyReportedPerThread = 16;

class VerifyTracker {
 public:
  explicit VerifyTracker(const VerifySetup& setup) : setup_(setup) {}

  // Before an I/O of one block at *offset: with writes, moves *offset to
  // the next block with no I/O in flight; fills a write's buffer. Returns
  // the value End needs (the write's generation, the entry a read expects).
  uint32_t Begin(uint16_t target, uint64_t* offset, bool is_write, void* buf) {
    const VerifyTable& t = setup_.tables[target];
    uint64_t block = *offset / setup_.block_size;
    if (setup_.track_in_flight) {
      while (ABSL_PREDICT_FALSE(t.entries[block] & kVerifyBusyBits)) {
        block = block + 1 == t.blocks ? 0 : block + 1;
      }
      *offset = block * setup_.block_size;
    }
    uint32_t& entry = t.entries[block];
    const uint32_t seen = entry;
    if (!is_write) {
      if (setup_.track_in_flight) entry = seen | kReadBit;
      return seen;
    }
    uint32_t generation = (seen & kGenerationBits) + 1;
    if (ABSL_PREDICT_FALSE(generation > kGenerationBits)) generation = 1;
    entry = generation | kWriteBit;
    FillBlock({t.target_id, *offset, setup_.block_size, setup_.seed},
              generation, buf);
    return generation;
  }

  // After the I/O: a write's generation becomes the block's (a failed write
  // leaves it uncertain); a read is checked. False on a verify mismatch,
  // which is counted, recorded and makes first_message() say what it is.
  bool End(uint16_t target, uint64_t offset, bool is_write, uint32_t value,
           bool failed, const void* buf) {
    const VerifyTable& t = setup_.tables[target];
    uint32_t& entry = t.entries[offset / setup_.block_size];
    if (is_write) {
      entry = failed ? (value | kUncertainBit) : value;
      return true;
    }
    if (setup_.track_in_flight) entry &= ~kReadBit;
    if (failed) return true;  // the I/O error is reported as such
    const uint64_t generation = value & kGenerationBits;
    const uint64_t lo = value & kUncertainBit ? generation - 1 : generation;
    if (generation == 0) {  // never written with verify: nothing to expect
      SingleWriterAdd(unwritten_, 1);
      return true;
    }
    if (BlockIsGood({t.target_id, offset, setup_.block_size, setup_.seed}, lo,
                    generation, buf)) {
      SingleWriterAdd(checked_, 1);
      return true;
    }
    if (lo == 0) {  // its first verify write may not have landed (crash)
      SingleWriterAdd(unwritten_, 1);
      return true;
    }
    return OnMismatch(target, offset, lo, generation, buf);
  }

  // Text for the workload's first error, from this thread's first mismatch.
  const std::string& first_message() const { return first_message_; }
  const std::string& last_message() const { return last_message_; }
  // Byte offset of the first wrong byte or header field of the last mismatch.
  uint64_t last_bad_byte_offset() const { return last_bad_byte_offset_; }
  // Any thread: counters. After the thread exited: the records too.
  void AddTo(VerifySummary* out, bool with_records) const;

 private:
  static constexpr uint32_t kGenerationBits = (1u << 29) - 1;
  static constexpr uint32_t kUncertainBit = 1u << 29;
  static constexpr uint32_t kReadBit = 1u << 30;
  static constexpr uint32_t kWriteBit = 1u << 31;
  static constexpr uint32_t kVerifyBusyBits = kReadBit | kWriteBit;

  ABSL_ATTRIBUTE_NOINLINE bool OnMismatch(uint16_t target, uint64_t offset,
                                          uint64_t lo, uint64_t hi,
                                          const void* buf);
  std::string Dump(uint16_t target, uint64_t offset, const void* buf);

  const VerifySetup& setup_;
  std::atomic<uint64_t> checked_{0};
  std::atomic<uint64_t> unwritten_{0};
  std::array<std::atomic<uint64_t>, kVerifyFailureKinds> by_kind_{};
  std::vector<VerifyMismatchRecord> records_;  // up to kVerifyReportedPerThread
  std::string first_message_;
  std::string last_message_;
  uint64_t last_bad_byte_offset_ = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_TRACKER_H_

#include "daemon/engine/verify/verify_tracker.h"

#include <fcntl.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/engine/verify/verify_state.h"

namespace blkperf::internal {

static_assert(kVerifyGenerationMask == (1u << 29) - 1);
static_assert(kVerifyUncertain == 1u << 29);
static_assert(kVerifyReadInFlight == 1u << 30);
static_assert(kVerifyWriteInFlight == 1u << 31);

namespace {

std::string Describe(const VerifyMismatchRecord& r) {
  std::string what;
  switch (r.kind_code) {
    case static_cast<int>(VerifyFailure::kStale):
      what = absl::StrCat("stale or lost write: the block holds generation ",
                          r.found_generation, ", the last acknowledged write "
                          "was generation ", r.expected_generation_hi);
      break;
    case static_cast<int>(VerifyFailure::kFuture):
      what = absl::StrCat("generation ", r.found_generation,
                          " is newer than any write issued (",
                          r.expected_generation_hi, ")");
      break;
    case static_cast<int>(VerifyFailure::kMisdirected):
      what = absl::StrCat("misdirected write: the block there belongs at "
                          "offset ", r.found_offset, " length ",
                          r.found_length);
      break;
    case static_cast<int>(VerifyFailure::kWrongTarget):
      what = absl::StrFormat("data from another target (target id %016x, "
                             "expected %016x)",
                             r.found_target_id, r.expected_target_id);
      break;
    case static_cast<int>(VerifyFailure::kWrongSeed):
      what = absl::StrCat("written with seed ", r.found_seed, ", expected ",
                          r.expected_seed);
      break;
    case static_cast<int>(VerifyFailure::kTorn):
      what = "torn write: sectors of different writes of this block";
      break;
    default:
      what = absl::StrFormat("first bad byte at offset %d, crc %08x, "
                             "computed %08x",
                             r.bad_byte_offset, r.found_crc, r.computed_crc);
  }
  return absl::StrCat("verify mismatch at ", r.target, " offset ", r.offset,
                      " (", r.kind, "): ", what);
}

}  // namespace

bool VerifyTracker::OnMismatch(uint16_t target, uint64_t offset, uint64_t lo,
                               uint64_t hi, const void* buf) {
  const VerifyTable& t = setup_.tables[target];
  const BlockIdentity id{t.target_id, offset, setup_.block_size, setup_.seed};
  const BlockCheck check = CheckBlock(id, lo, hi, buf);
  const VerifyFailure kind =
      check.kind == VerifyFailure::kNone ? VerifyFailure::kCorrupt : check.kind;
  SingleWriterAdd(by_kind_[static_cast<int>(kind)], 1);
  VerifyMismatchRecord r;
  r.target = t.path;
  r.offset = offset;
  r.bad_byte_offset = offset + check.first_bad_byte;
  last_bad_byte_offset_ = r.bad_byte_offset;
  r.kind = std::string(VerifyFailureName(kind));
  r.kind_code = static_cast<int>(kind);
  r.expected_target_id = t.target_id;
  r.expected_length = setup_.block_size;
  r.expected_seed = setup_.seed;
  r.expected_generation_lo = lo;
  r.expected_generation_hi = hi;
  r.found_magic_ok = check.found.magic == kVerifyMagic;
  r.found_target_id = check.found.target_id;
  r.found_offset = check.found.offset;
  r.found_length = check.found.length;
  r.found_seed = check.found.seed;
  r.found_generation = check.found.generation;
  r.found_crc = check.found.crc;
  r.computed_crc = check.computed_crc;
  if (records_.size() < kVerifyReportedPerThread) {
    if (!setup_.dump_dir.empty()) r.dump_path = Dump(target, offset, buf);
    r.message = Describe(r);
    if (records_.empty()) first_message_ = r.message;
    last_message_ = r.message;
    records_.push_back(std::move(r));
  } else {
    last_message_ = Describe(r);
  }
  return false;
}

std::string VerifyTracker::Dump(uint16_t target, uint64_t offset,
                                const void* buf) {
  const std::string path =
      absl::StrFormat("%s/bad-%016x-%d.bin", setup_.dump_dir,
                      setup_.tables[target].target_id, offset);
  // O_EXCL|O_NOFOLLOW: never writes through a link or over a file.
  const int fd = open(path.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      0600);
  if (fd < 0) return absl::StrCat("(not dumped: ", strerror(errno), ")");
  const ssize_t n = pwrite(fd, buf, setup_.block_size, 0);
  close(fd);
  return n == static_cast<ssize_t>(setup_.block_size)
             ? path
             : absl::StrCat("(dump short: ", path, ")");
}

void VerifyTracker::AddTo(VerifySummary* out, bool with_records) const {
  out->enabled = true;
  out->checked += checked_.load(std::memory_order_relaxed);
  out->unwritten += unwritten_.load(std::memory_order_relaxed);
  out->by_kind.resize(kVerifyFailureKinds);
  for (int k = 0; k < kVerifyFailureKinds; ++k) {
    const uint64_t n = by_kind_[k].load(std::memory_order_relaxed);
    out->by_kind[k].first =
        std::string(VerifyFailureName(static_cast<VerifyFailure>(k)));
    out->by_kind[k].second += n;
    out->mismatches += n;
  }
  if (with_records) {
    out->records.insert(out->records.end(), records_.begin(), records_.end());
  }
}

}  // namespace blkperf::internal

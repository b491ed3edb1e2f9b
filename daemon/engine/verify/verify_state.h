// Verify state: the write generation of every block of one target, kept in
// the data directory (fio's verify_state_save/load) so a later run — also
// one after the daemon was killed mid-write — knows which write each block
// must hold.
//
//   <state_dir>/<target id as 16 hex digits>.state
//     4096-byte header (magic, version, target id, block size, blocks, path)
//     then one uint32 entry per block (VerifyEntry bits below)
//
//   absl::StatusOr<std::unique_ptr<VerifyStateFile>> s = VerifyStateFile::Open(
//       dir, path, block_size, blocks, VerifyStateFile::kCreateOrLoad);
//   uint32_t* table = (*s)->entries();   // mapped MAP_SHARED
//
// The table is the file, mapped shared: a store to an entry is in the page
// cache at once, so it survives the process being SIGKILLed (not a power
// loss: the file is synced only when the run ends). Bounded:
// kMaxVerifyStateBytes. Entries are written by one submitter thread only
// (verify with writes runs one thread); readers of a read-only run only read.
#ifndef BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_STATE_H_
#define BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_STATE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

// Entry bits: the generation (0 = never written with verify) and flags.
inline constexpr uint32_t kVerifyGenerationMask = (1u << 29) - 1;
// A write of this generation was issued and not yet acknowledged. Found on
// load: the run before ended (was killed) with it in flight.
inline constexpr uint32_t kVerifyWriteInFlight = 1u << 31;
// A read of the block is in flight (write runs only).
inline constexpr uint32_t kVerifyReadInFlight = 1u << 30;
// The block holds generation g or g-1: a write was in flight at a crash.
inline constexpr uint32_t kVerifyUncertain = 1u << 29;
inline constexpr uint32_t kVerifyBusy = kVerifyWriteInFlight | kVerifyReadInFlight;

// Largest state file (header + table): 256 MiB, i.e. 64 Mi blocks (256 GiB
// of target at 4 KiB blocks). ResolveSpec refuses bigger targets.
inline constexpr uint64_t kMaxVerifyStateBytes = uint64_t{256} << 20;
inline constexpr uint64_t kVerifyStateHeaderBytes = 4096;
inline constexpr uint64_t kMaxVerifyStateBlocks =
    (kMaxVerifyStateBytes - kVerifyStateHeaderBytes) / sizeof(uint32_t);

class VerifyStateFile {
 public:
  enum Mode {
    // Loads a state of the same block size and block count, or starts a new
    // one (all zero) in its place: a writing run.
    kCreateOrLoad,
    // Loads it; NotFound when missing, InvalidArgument (naming block_size)
    // when it was made for another block size or target size: a reading
    // run.
    kLoad,
  };

  // `state_dir` empty: an anonymous table that lives only as long as this
  // object (nothing saved). Otherwise the directory is created if missing and
  // the file opened without following links and checked to be a regular
  // file. A loaded table has its in-flight marks resolved: a write in flight
  // becomes kVerifyUncertain, a read mark is cleared. The file is locked
  // (flock) for the object's life: FailedPrecondition, naming the target,
  // while another run (of any process) holds it.
  static absl::StatusOr<std::unique_ptr<VerifyStateFile>> Open(
      absl::string_view state_dir, absl::string_view target_path,
      uint32_t block_size, uint64_t blocks, Mode mode);

  ~VerifyStateFile();  // msyncs and unmaps
  VerifyStateFile(const VerifyStateFile&) = delete;
  VerifyStateFile& operator=(const VerifyStateFile&) = delete;

  uint32_t* entries() { return entries_; }
  uint64_t blocks() const { return blocks_; }
  const std::string& path() const { return path_; }  // "" when anonymous
  bool loaded() const { return loaded_; }            // an earlier run's state
  // Ends this run's hold on the state (the lock Open took), once the run's
  // I/O has ended: a finished workload kept for its results must not keep
  // the next run out. The table stays mapped and readable.
  void Unlock();
  // What happened on open worth a note (a new state replacing an
  // incompatible one, writes found in flight). Empty when nothing.
  const std::string& note() const { return note_; }

  // Removes the state of `target_path` in `state_dir` (a run that writes it
  // without verify makes it wrong). True when there was one.
  static bool Discard(absl::string_view state_dir,
                      absl::string_view target_path);
  static std::string FilePath(absl::string_view state_dir,
                              absl::string_view target_path);

 private:
  VerifyStateFile() = default;
  absl::Status Map(int fd, bool fresh, absl::string_view target_path,
                   uint32_t block_size);

  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint32_t* entries_ = nullptr;
  uint64_t blocks_ = 0;
  std::string path_;
  bool loaded_ = false;
  std::string note_;
  int lock_fd_ = -1;  // the state file, flocked while this object lives
};

// Writes every whole block of the regular file open (writable) as `fd` as a
// verify block of its next generation and records it in `state` (whose
// blocks are the file's): how the default target is made checkable again.
// `path` names the file in messages and gives its target id; it is never
// opened. `fd` is borrowed. Refuses anything but a regular file (checked on
// the fd).
absl::Status FillTargetForVerify(int fd, absl::string_view path,
                                 uint32_t block_size, uint64_t seed,
                                 VerifyStateFile* state);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_STATE_H_

// Verify state: the write generation of every block of one target, kept in
// the data directory (fio's verify_state_save/load) so a later run — also
// one after the daemon was killed mid-write — knows which write each block
// must hold.
//
//   <state_dir>/f-<st_dev>-<st_ino>.state   (a file, hex)
//   <state_dir>/b-<st_rdev>.state           (a block device, hex)
//     4096-byte header (magic, version, target id, block size, blocks, path)
//     then one uint32 entry per block (VerifyEntry bits below)
//
// Keyed by the opened target's identity, never by the path's text: every
// spelling of one file (rw/f, rw/./f, rw//f, a hard link) shares one state,
// and a write without verify through any of them discards it. The target id
// the blocks carry is the one recorded when the state was made.
//
//   absl::StatusOr<std::unique_ptr<VerifyStateFile>> s = VerifyStateFile::Open(
//       dir, key, path, block_size, blocks, VerifyStateFile::kCreateOrLoad);
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

// At most this many state files in one state directory: a new state beyond
// it is refused (ResourceExhausted naming the directory), never evicted.
inline constexpr size_t kMaxVerifyStates = 1024;

// What a verify state is kept under: the opened target's identity.
struct VerifyStateKey {
  bool block_device = false;  // then `device` is st_rdev and `inode` unused
  uint64_t device = 0;        // st_dev of a file
  uint64_t inode = 0;         // st_ino of a file
};

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
  // `target_path` names the target in messages (and, for a new state, gives
  // its target id); the state is found by `key` alone. A new state file
  // when the directory holds kMaxVerifyStates already: ResourceExhausted.
  static absl::StatusOr<std::unique_ptr<VerifyStateFile>> Open(
      absl::string_view state_dir, const VerifyStateKey& key,
      absl::string_view target_path, uint32_t block_size, uint64_t blocks,
      Mode mode);

  ~VerifyStateFile();  // msyncs and unmaps
  VerifyStateFile(const VerifyStateFile&) = delete;
  VerifyStateFile& operator=(const VerifyStateFile&) = delete;

  uint32_t* entries() { return entries_; }
  uint64_t blocks() const { return blocks_; }
  const std::string& path() const { return path_; }  // "" when anonymous
  // The id the target's verify blocks carry (BlockIdentity::target_id).
  uint64_t target_id() const { return target_id_; }
  bool loaded() const { return loaded_; }            // an earlier run's state
  // Ends this run's hold on the state (the lock Open took), once the run's
  // I/O has ended: a finished workload kept for its results must not keep
  // the next run out. The table stays mapped and readable.
  void Unlock();
  // What happened on open worth a note (a new state replacing an
  // incompatible one, writes found in flight). Empty when nothing.
  const std::string& note() const { return note_; }

  // Removes the state of the target `key` names in `state_dir` (a run that
  // writes it without verify makes it wrong). True when there was one.
  static bool Discard(absl::string_view state_dir, const VerifyStateKey& key);
  static std::string FilePath(absl::string_view state_dir,
                              const VerifyStateKey& key);

 private:
  VerifyStateFile() = default;
  absl::Status Map(int fd, bool fresh, absl::string_view target_path,
                   uint32_t block_size);

  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint32_t* entries_ = nullptr;
  uint64_t blocks_ = 0;
  uint64_t target_id_ = 0;
  std::string path_;
  bool loaded_ = false;
  std::string note_;
  int lock_fd_ = -1;  // the state file, flocked while this object lives
};

// Writes every whole block of the regular file open (writable) as `fd` as a
// verify block of its next generation and records it in `state` (whose
// blocks are the file's): how the default target is made checkable again.
// `path` names the file in messages; the blocks carry state->target_id().
// `path` is never opened. `fd` is borrowed. Refuses anything but a regular file (checked on
// the fd).
absl::Status FillTargetForVerify(int fd, absl::string_view path,
                                 uint32_t block_size, uint64_t seed,
                                 VerifyStateFile* state);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_STATE_H_

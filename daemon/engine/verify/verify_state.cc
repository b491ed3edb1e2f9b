#include "daemon/engine/verify/verify_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "daemon/engine/verify/verify_block.h"

namespace blkperf {
namespace {

constexpr uint64_t kStateMagic = 0x31545356504b4c42ULL;  // "BLKPVST1"
constexpr uint32_t kStateVersion = 1;
constexpr size_t kPathBytes = 1024;

struct StateHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t block_size;
  uint64_t target_id;
  uint64_t blocks;
  char path[kPathBytes];  // the target path, for people reading the file
};
static_assert(sizeof(StateHeader) <= kVerifyStateHeaderBytes);

// The state files in `dir` (names ending ".state"); 0 when unreadable.
size_t CountStates(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  size_t n = 0;
  while (const dirent* e = readdir(d)) {
    if (absl::EndsWith(e->d_name, ".state")) ++n;
  }
  closedir(d);
  return n;
}

}  // namespace

std::string VerifyStateFile::FilePath(absl::string_view state_dir,
                                      const VerifyStateKey& key) {
  if (key.block_device) {
    return absl::StrFormat("%s/b-%x.state", state_dir, key.device);
  }
  return absl::StrFormat("%s/f-%x-%x.state", state_dir, key.device,
                         key.inode);
}

bool VerifyStateFile::Discard(absl::string_view state_dir,
                              const VerifyStateKey& key) {
  if (state_dir.empty()) return false;
  return unlink(FilePath(state_dir, key).c_str()) == 0;
}

namespace {

// The state file at `path` opened read-write (created in `dir`, within
// kMaxVerifyStates, when missing and `mode` allows): its descriptor.
absl::StatusOr<int> OpenStateFile(const std::string& dir,
                                  const std::string& path,
                                  absl::string_view target_path,
                                  VerifyStateFile::Mode mode) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "verify state directory ", dir, " cannot be created: ",
        error.message()));
  }
  const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW;
  int fd = open(path.c_str(), flags);
  if (fd < 0 && errno == ENOENT && mode == VerifyStateFile::kCreateOrLoad) {
    if (CountStates(dir) >= kMaxVerifyStates) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "verify: ", dir, " holds ", kMaxVerifyStates,
          " verify states already (the limit); no new one for ", target_path,
          ": remove states of targets no longer verified"));
    }
    fd = open(path.c_str(), flags | O_CREAT, 0600);
  }
  if (fd >= 0) return fd;
  if (errno == ENOENT) {
    return absl::NotFoundError(absl::StrCat(
        "verify: no verify state for ", target_path, " (", path,
        "): write the target with verify first"));
  }
  return absl::ErrnoToStatus(errno, absl::StrCat("verify state ", path));
}

// One run at a time per state: held until Unlock or the object goes, so a
// pass cannot read a table a live writer is changing, and a write found in
// flight on load is one whose run has really ended. On an open file of its
// own (the same inode, reopened through /proc, not by name again): the
// mapping keeps `fd`'s open file alive after close, and with it any flock
// on it. Returns the locked descriptor.
absl::StatusOr<int> LockStateFile(int fd, const std::string& path,
                                  absl::string_view target_path) {
  const int lock_fd = open(absl::StrCat("/proc/self/fd/", fd).c_str(),
                           O_RDONLY | O_CLOEXEC);
  if (lock_fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("open verify state ", path));
  }
  if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0) return lock_fd;
  const int error_number = errno;
  close(lock_fd);
  if (error_number == EWOULDBLOCK) {
    return absl::FailedPreconditionError(absl::StrCat(
        "verify: the verify state of ", target_path, " (", path,
        ") is held by another run writing or verifying it now: wait for "
        "that run to end"));
  }
  return absl::ErrnoToStatus(error_number,
                             absl::StrCat("lock verify state ", path));
}

// Whether the file `fd` (`file_bytes` long) holds a state of this layout;
// `header` gets its header. Loading one of another layout is refused.
absl::StatusOr<bool> StateCompatible(int fd, uint64_t file_bytes,
                                     const std::string& path,
                                     absl::string_view target_path,
                                     uint32_t block_size, uint64_t blocks,
                                     VerifyStateFile::Mode mode,
                                     StateHeader* header) {
  const uint64_t want = kVerifyStateHeaderBytes + blocks * sizeof(uint32_t);
  bool compatible = false;
  if (pread(fd, header, sizeof(*header), 0) ==
      static_cast<ssize_t>(sizeof(*header))) {
    compatible = file_bytes == want && header->magic == kStateMagic &&
                 header->version == kStateVersion &&
                 header->block_size == block_size && header->blocks == blocks;
  }
  if (compatible || mode != VerifyStateFile::kLoad) return compatible;
  return absl::InvalidArgumentError(absl::StrCat(
      "verify: the verify state of ", target_path, " (", path,
      ") was written for ",
      header->magic == kStateMagic
          ? absl::StrCat("block_size ", header->block_size, " and ",
                         header->blocks, " blocks")
          : "another layout",
      "; this run has block_size ", block_size, " and ", blocks,
      " blocks: use the same block_size"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<VerifyStateFile>> VerifyStateFile::Open(
    absl::string_view state_dir, const VerifyStateKey& key,
    absl::string_view target_path, uint32_t block_size, uint64_t blocks,
    Mode mode) {
  if (blocks > kMaxVerifyStateBlocks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "verify: ", target_path, " has ", blocks, " blocks of ", block_size,
        " bytes; verify state is limited to ", kMaxVerifyStateBlocks,
        " blocks (", kMaxVerifyStateBytes >> 20,
        " MiB): use a larger block_size"));
  }
  std::unique_ptr<VerifyStateFile> state(new VerifyStateFile());
  state->blocks_ = blocks;
  state->target_id_ = VerifyTargetId(target_path);
  if (state_dir.empty()) {
    if (mode == kLoad) {
      return absl::FailedPreconditionError(absl::StrCat(
          "verify: no data directory to load ", target_path,
          "'s verify state from"));
    }
    absl::Status mapped = state->Map(-1, true, target_path, block_size);
    if (!mapped.ok()) return mapped;
    return state;
  }
  state->path_ = FilePath(state_dir, key);
  BLKPERF_ASSIGN_OR_RETURN(
      const int fd,
      OpenStateFile(std::string(state_dir), state->path_, target_path, mode));
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "verify state ", state->path_, " is not a regular file"));
  }
  BLKPERF_ASSIGN_OR_RETURN(const int lock_fd,
                           LockStateFile(fd, state->path_, target_path));
  absl::Cleanup close_lock = [lock_fd] { close(lock_fd); };
  StateHeader header{};
  BLKPERF_ASSIGN_OR_RETURN(
      const bool compatible,
      StateCompatible(fd, static_cast<uint64_t>(st.st_size), state->path_,
                      target_path, block_size, blocks, mode, &header));
  if (!compatible && st.st_size != 0) {
    state->note_ = absl::StrCat("verify: started a new verify state for ",
                                target_path,
                                " (the old one was for another block_size or "
                                "target size)");
  }
  if (!compatible && ftruncate(fd, 0) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("truncate ", state->path_));
  }
  absl::Status mapped = state->Map(fd, !compatible, target_path,
                                   block_size);
  if (!mapped.ok()) return mapped;
  state->loaded_ = compatible;
  if (compatible) state->target_id_ = header.target_id;
  std::move(close_lock).Cancel();
  state->lock_fd_ = lock_fd;
  return state;
}

absl::Status VerifyStateFile::Map(int fd, bool fresh,
                                  absl::string_view target_path,
                                  uint32_t block_size) {
  map_bytes_ = kVerifyStateHeaderBytes + blocks_ * sizeof(uint32_t);
  if (fd >= 0 && fresh && ftruncate(fd, static_cast<off_t>(map_bytes_)) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("size ", path_));
  }
  // Populated now, so the hot path takes no page fault on the table.
  const int flags =
      (fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS) | MAP_POPULATE;
  map_ = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    return absl::ErrnoToStatus(errno, absl::StrCat("map verify state ",
                                                   path_));
  }
  entries_ = reinterpret_cast<uint32_t*>(static_cast<char*>(map_) +
                                         kVerifyStateHeaderBytes);
  if (fresh) {
    StateHeader header{};
    header.magic = kStateMagic;
    header.version = kStateVersion;
    header.block_size = block_size;
    header.target_id = target_id_;
    header.blocks = blocks_;
    const size_t n = std::min(target_path.size(), kPathBytes - 1);
    std::memcpy(header.path, target_path.data(), n);
    std::memcpy(map_, &header, sizeof(header));
    return absl::OkStatus();
  }
  // The previous run's marks: a write it had in flight may or may not have
  // reached the target; a read in flight changed nothing.
  uint64_t in_flight = 0;
  for (uint64_t i = 0; i < blocks_; ++i) {
    uint32_t& e = entries_[i];
    if (e & kVerifyWriteInFlight) {
      e = (e & kVerifyGenerationMask) | kVerifyUncertain;
      ++in_flight;
    } else {
      e &= ~kVerifyReadInFlight;
    }
  }
  if (in_flight != 0) {
    note_ = absl::StrCat("verify: ", in_flight, " block(s) of ", target_path,
                         " had a write in flight when the run that wrote "
                         "them ended (killed?): either version is accepted "
                         "there");
  }
  return absl::OkStatus();
}

void VerifyStateFile::Unlock() {
  if (lock_fd_ < 0) return;
  if (map_ != nullptr && !path_.empty()) msync(map_, map_bytes_, MS_SYNC);
  close(lock_fd_);
  lock_fd_ = -1;
}

VerifyStateFile::~VerifyStateFile() {
  if (map_ != nullptr) {
    if (!path_.empty()) msync(map_, map_bytes_, MS_SYNC);
    munmap(map_, map_bytes_);
  }
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the run's lock
}

absl::Status FillTargetForVerify(int fd, absl::string_view path,
                                 uint32_t block_size, uint64_t seed,
                                 VerifyStateFile* state) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a regular file; refusing to fill it"));
  }
  const uint64_t per_chunk = std::max<uint64_t>(1, (1u << 20) / block_size);
  std::vector<unsigned char> chunk(per_chunk * block_size);
  const uint64_t target_id = state->target_id();
  uint32_t* entries = state->entries();
  for (uint64_t block = 0; block < state->blocks(); block += per_chunk) {
    const uint64_t n = std::min(per_chunk, state->blocks() - block);
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t generation = (entries[block + i] & kVerifyGenerationMask) + 1;
      if (generation > kVerifyGenerationMask) generation = 1;
      FillBlock({target_id, (block + i) * block_size, block_size, seed},
                generation, chunk.data() + i * block_size);
      entries[block + i] = generation | kVerifyWriteInFlight;
    }
    const size_t bytes = n * block_size;
    const off_t at = static_cast<off_t>(block * block_size);
    for (size_t done = 0; done < bytes;) {
      const ssize_t w = pwrite(fd, chunk.data() + done, bytes - done,
                               at + static_cast<off_t>(done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        return absl::ErrnoToStatus(w < 0 ? errno : EIO,
                                   absl::StrCat("fill ", path));
      }
      done += static_cast<size_t>(w);
    }
    for (uint64_t i = 0; i < n; ++i) entries[block + i] &= ~kVerifyWriteInFlight;
  }
  if (fsync(fd) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("fsync ", path));
  }
  return absl::OkStatus();
}

}  // namespace blkperf

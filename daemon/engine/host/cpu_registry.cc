#include "daemon/engine/host/cpu_registry.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace blkperf {
namespace {

// mkdir -p of root/cpus; world-writable and sticky like /tmp, so runs of
// any user share one registry and none removes another's files.
absl::Status MakeRegistryDir(const std::string& dir) {
  const std::string& path = dir;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    const std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 01777) == 0) {
      chmod(prefix.c_str(), 01777);  // the umask applies to mkdir's mode
    } else if (errno != EEXIST) {
      return absl::ErrnoToStatus(errno, absl::StrCat("mkdir ", prefix));
    }
  }
  return absl::OkStatus();
}

// The pid written in a held lock file; "unknown" when unreadable.
std::string HolderOf(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  int pid = 0;
  if (n <= 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(
                    absl::string_view(buf, static_cast<size_t>(n))), &pid)) {
    return "a process whose pid is unknown";
  }
  return absl::StrCat("pid ", pid);
}

class Registry {
 public:
  explicit Registry(std::string dir) : dir_(std::move(dir)) {}

  // Whether this run holds `cpu` after the call (false: another process
  // does, recorded in holders_). Errors other than a held lock are returned.
  absl::StatusOr<bool> TryHold(int cpu, CpuRegistration* reg) {
    if (std::find(held_.begin(), held_.end(), cpu) != held_.end()) return true;
    if (holders_.count(cpu)) return false;
    const std::string path = absl::StrCat(dir_, "/cpu", cpu);
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
    if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) {
        return absl::ErrnoToStatus(errno, absl::StrCat("flock ", path));
      }
      holders_[cpu] = HolderOf(fd.get());
      return false;
    }
    const std::string pid = absl::StrCat(getpid(), "\n");
    if (ftruncate(fd.get(), 0) != 0 ||
        pwrite(fd.get(), pid.data(), pid.size(), 0) !=
            static_cast<ssize_t>(pid.size())) {
      return absl::ErrnoToStatus(errno, absl::StrCat("write ", path));
    }
    held_.push_back(cpu);
    reg->locks.push_back(std::move(fd));
    return true;
  }

  const std::map<int, std::string>& holders() const { return holders_; }

 private:
  const std::string dir_;
  std::vector<int> held_;
  std::map<int, std::string> holders_;  // CPUs others hold: their holder
};

// For thread `i` when every CPU of `placement` is held: the first one this
// run has not taken yet (shared with another run, but not between two of
// this run's threads, which the spec refuses), else the round-robin one.
int SharedChoice(const std::vector<int>& placement,
                 const std::vector<int>& taken, uint32_t i) {
  for (int cpu : placement) {
    if (std::find(taken.begin(), taken.end(), cpu) == taken.end()) return cpu;
  }
  return placement[i % placement.size()];
}

}  // namespace

absl::StatusOr<CpuRegistration> RegisterCpus(const std::string& root,
                                             const std::vector<int>& placement,
                                             const std::vector<int>& requested,
                                             uint32_t threads,
                                             bool refuse_sharing) {
  CpuRegistration reg;
  reg.cpus = requested;
  const std::string dir = root + "/cpus";
  Registry registry(dir);
  absl::Status status = MakeRegistryDir(dir);
  for (size_t i = 0; status.ok() && i < requested.size(); ++i) {
    status = registry.TryHold(requested[i], &reg).status();
  }
  // Free CPUs first, one thread each; then the old round-robin.
  for (uint32_t i = static_cast<uint32_t>(reg.cpus.size());
       status.ok() && i < threads; ++i) {
    int chosen = -1;
    for (int cpu : placement) {
      if (std::find(reg.cpus.begin(), reg.cpus.end(), cpu) != reg.cpus.end()) {
        continue;
      }
      absl::StatusOr<bool> held = registry.TryHold(cpu, &reg);
      if (!held.ok()) status = held.status();
      if (!held.ok() || *held) {
        chosen = cpu;
        break;
      }
    }
    if (chosen < 0) chosen = SharedChoice(placement, reg.cpus, i);
    reg.cpus.push_back(chosen);
    if (status.ok()) status = registry.TryHold(chosen, &reg).status();
  }
  if (!status.ok()) {  // no registry: placed as before, and said so
    CpuRegistration plain;
    plain.cpus = requested;
    for (uint32_t i = static_cast<uint32_t>(plain.cpus.size()); i < threads; ++i) {
      plain.cpus.push_back(placement[i % placement.size()]);
    }
    plain.note = absl::StrCat(
        "cpus: the host's CPU registry ", dir, " could not be used (",
        status.message(), "): this run's CPUs were chosen without knowing "
        "whether other blkperf runs hold them");
    return plain;
  }
  std::vector<std::string> named;
  for (const auto& [cpu, holder] : registry.holders()) {
    if (std::find(reg.cpus.begin(), reg.cpus.end(), cpu) == reg.cpus.end()) {
      continue;  // tried, not taken
    }
    reg.shared.push_back(cpu);
    named.push_back(absl::StrCat("CPU ", cpu, " (held by ", holder, ")"));
  }
  if (reg.shared.empty()) return reg;
  const std::string list = absl::StrJoin(named, ", ");
  if (refuse_sharing) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cpu_sharing: refuse: ", list, " is held by another blkperf run (",
        dir, ")"));
  }
  reg.note = absl::StrCat(
      "cpus: this run shares ", list, " with another blkperf run (", dir,
      "): their submitters compete for the CPU, and this run's figures are "
      "not those of a run alone");
  return reg;
}

}  // namespace blkperf

#include "daemon/engine/host/environment.h"

#include <link.h>
#include <sys/utsname.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/version.h"

namespace blkperf {
namespace {

// At most this much of any one file is read.
constexpr size_t kMaxFileBytes = 64 * 1024;

// The file's text, or "" when it cannot be read.
std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::string text(kMaxFileBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string Fact(const std::string& path) {
  return SanitizeFact(ReadSmallFile(path));
}

// The first file of `paths` that holds a fact.
std::string FirstFact(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    std::string fact = Fact(path);
    if (fact != kUnknownFact) return fact;
  }
  return kUnknownFact;
}

// The value after "key" and a colon in a "key : value" file (/proc/cpuinfo,
// /proc/meminfo): the first such line.
std::string KeyedValue(absl::string_view text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, key)) continue;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::StripAsciiWhitespace(line.substr(0, colon)) != key) continue;
    return std::string(line.substr(colon + 1));
  }
  return "";
}

std::string MemoryBytes() {
  // "MemTotal:       16318412 kB"
  std::string kb = KeyedValue(ReadSmallFile("/proc/meminfo"), "MemTotal");
  absl::string_view number = absl::StripAsciiWhitespace(kb);
  if (!absl::ConsumeSuffix(&number, "kB")) return kUnknownFact;
  uint64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(number), &value)) {
    return kUnknownFact;
  }
  return absl::StrCat(value * 1024);
}

// "none [mq-deadline] kyber" -> "mq-deadline"; "none" -> "none".
std::string ActiveScheduler(const std::string& text) {
  const size_t open = text.find('[');
  const size_t close = text.find(']', open == std::string::npos ? 0 : open);
  if (open != std::string::npos && close != std::string::npos) {
    return SanitizeFact(text.substr(open + 1, close - open - 1));
  }
  return SanitizeFact(text);
}

void FillHost(Environment* env) {
  struct utsname u;
  if (uname(&u) == 0) {
    env->hostname = SanitizeFact(u.nodename);
    env->kernel_release = SanitizeFact(u.release);
    env->kernel_version = SanitizeFact(u.version);
    env->machine = SanitizeFact(u.machine);
  }
  env->boot_id = Fact("/proc/sys/kernel/random/boot_id");
  env->cpu_model =
      SanitizeFact(KeyedValue(ReadSmallFile("/proc/cpuinfo"), "model name"));
  env->online_cpus = Fact("/sys/devices/system/cpu/online");
  env->smt = Fact("/sys/devices/system/cpu/smt/active");
  env->cpu_governor =
      Fact("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  env->numa_nodes = Fact("/sys/devices/system/node/online");
  env->memory_bytes = MemoryBytes();
}

int ListLoadedLiburing(struct dl_phdr_info* info, size_t, void* data) {
  const absl::string_view name = info->dlpi_name ? info->dlpi_name : "";
  if (absl::StrContains(name, "liburing.so")) {
    *static_cast<std::string*>(data) = std::string(name);
    return 1;
  }
  return 0;
}

}  // namespace

std::string LoadedLiburingVersion() {
  std::string path;
  dl_iterate_phdr(ListLoadedLiburing, &path);
  if (path.empty()) return kUnknownFact;
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return kUnknownFact;
  absl::string_view base = resolved;
  base = base.substr(base.rfind('/') + 1);
  if (!absl::ConsumePrefix(&base, "liburing.so.")) return kUnknownFact;
  return SanitizeFact(base);
}

std::string SpecHash(absl::string_view spec_bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : spec_bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return absl::StrFormat("fnv1a64:%016x", hash);
}

TargetEnvironment CollectTargetEnvironment(const TargetInfo& info) {
  TargetEnvironment t;
  t.path = SanitizeFact(info.path);
  if (info.kind != TargetKind::kNop) t.size_bytes = absl::StrCat(info.size_bytes);
  if (info.device_name.empty() || info.device_name.find('/') != std::string::npos) {
    return t;
  }
  t.device = SanitizeFact(info.device_name);
  const std::string disk = absl::StrCat("/sys/block/", info.device_name);
  const std::string dev = disk + "/device";
  const std::string queue = disk + "/queue";
  t.model = Fact(dev + "/model");
  t.firmware_rev = FirstFact({dev + "/firmware_rev", dev + "/rev"});
  t.serial = FirstFact({dev + "/serial", disk + "/serial"});
  t.wwid = FirstFact({disk + "/wwid", dev + "/wwid"});
  t.numa_node = Fact(dev + "/numa_node");
  t.logical_block_size = Fact(queue + "/logical_block_size");
  t.physical_block_size = Fact(queue + "/physical_block_size");
  t.rotational = Fact(queue + "/rotational");
  const std::string scheduler = ReadSmallFile(queue + "/scheduler");
  t.scheduler = ActiveScheduler(scheduler);
  t.nomerges = Fact(queue + "/nomerges");
  t.rq_affinity = Fact(queue + "/rq_affinity");
  t.nr_requests = Fact(queue + "/nr_requests");
  t.max_sectors_kb = Fact(queue + "/max_sectors_kb");
  t.write_cache = Fact(queue + "/write_cache");
  return t;
}

Environment CollectEnvironment(const std::vector<TargetInfo>& targets,
                               absl::string_view spec_bytes) {
  Environment env;
  env.blkperf_version = SanitizeFact(BlkperfVersion());
  env.blkperf_commit = SanitizeFact(BlkperfCommit());
  FillHost(&env);
  env.liburing_version = LoadedLiburingVersion();
  env.spec_hash = SpecHash(spec_bytes);
  for (const TargetInfo& info : targets) {
    if (env.targets.size() == kMaxEnvironmentTargets) break;
    env.targets.push_back(CollectTargetEnvironment(info));
  }
  return env;
}

std::string IoUringFeatures(const RingSetup& ring) {
  if (ring.io_mode.empty() && ring.setup_flags.empty()) return kUnknownFact;
  std::vector<std::string> features = ring.setup_flags;
  if (ring.registered_ring_fd) features.push_back("registered_ring_fd");
  if (ring.fixed_buffers) features.push_back("fixed_buffers");
  if (ring.registered_files) features.push_back("registered_files");
  if (ring.polled) features.push_back("polled");
  if (ring.sqpoll) features.push_back("sqpoll");
  if (ring.huge_pages) features.push_back("huge_pages");
  if (!ring.io_mode.empty()) features.push_back("io_mode=" + ring.io_mode);
  return absl::StrJoin(features, "|");
}

}  // namespace blkperf

#include "daemon/engine/host/host_capabilities.h"

#include <liburing.h>
#include <string.h>
#include <sys/utsname.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace blkperf {
namespace {

struct Named {
  unsigned value;
  const char* name;
};

constexpr Named kFeatures[] = {
    {IORING_FEAT_SINGLE_MMAP, "SINGLE_MMAP"},
    {IORING_FEAT_NODROP, "NODROP"},
    {IORING_FEAT_SUBMIT_STABLE, "SUBMIT_STABLE"},
    {IORING_FEAT_RW_CUR_POS, "RW_CUR_POS"},
    {IORING_FEAT_CUR_PERSONALITY, "CUR_PERSONALITY"},
    {IORING_FEAT_FAST_POLL, "FAST_POLL"},
    {IORING_FEAT_POLL_32BITS, "POLL_32BITS"},
    {IORING_FEAT_SQPOLL_NONFIXED, "SQPOLL_NONFIXED"},
    {IORING_FEAT_EXT_ARG, "EXT_ARG"},
    {IORING_FEAT_NATIVE_WORKERS, "NATIVE_WORKERS"},
    {IORING_FEAT_RSRC_TAGS, "RSRC_TAGS"},
    {IORING_FEAT_CQE_SKIP, "CQE_SKIP"},
    {IORING_FEAT_LINKED_FILE, "LINKED_FILE"},
    {1U << 13, "REG_REG_RING"},
};

// Each is tried alone, with the flags it cannot be set up without.
struct SetupFlag {
  unsigned flag;
  unsigned requires_flags;
  const char* name;
};
constexpr SetupFlag kSetupFlags[] = {
    {IORING_SETUP_IOPOLL, 0, "IOPOLL"},
    {IORING_SETUP_SQPOLL, 0, "SQPOLL"},
    {IORING_SETUP_SQ_AFF, IORING_SETUP_SQPOLL, "SQ_AFF"},
    {IORING_SETUP_CLAMP, 0, "CLAMP"},
    {IORING_SETUP_SUBMIT_ALL, 0, "SUBMIT_ALL"},
    {IORING_SETUP_COOP_TASKRUN, 0, "COOP_TASKRUN"},
    {IORING_SETUP_TASKRUN_FLAG, IORING_SETUP_COOP_TASKRUN, "TASKRUN_FLAG"},
    {IORING_SETUP_SQE128, 0, "SQE128"},
    {IORING_SETUP_CQE32, 0, "CQE32"},
    {IORING_SETUP_SINGLE_ISSUER, 0, "SINGLE_ISSUER"},
    {IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER, "DEFER_TASKRUN"},
};

constexpr Named kOpcodes[] = {
    {IORING_OP_NOP, "NOP"},
    {IORING_OP_READV, "READV"},
    {IORING_OP_WRITEV, "WRITEV"},
    {IORING_OP_FSYNC, "FSYNC"},
    {IORING_OP_READ_FIXED, "READ_FIXED"},
    {IORING_OP_WRITE_FIXED, "WRITE_FIXED"},
    {IORING_OP_READ, "READ"},
    {IORING_OP_WRITE, "WRITE"},
    {IORING_OP_FALLOCATE, "FALLOCATE"},
    {IORING_OP_URING_CMD, "URING_CMD"},
};

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

void ProbeRing(HostCapabilities* caps) {
  struct io_uring ring;
  struct io_uring_params params;
  memset(&params, 0, sizeof(params));
  const int ret = io_uring_queue_init_params(4, &ring, &params);
  if (ret < 0) {
    caps->unavailable_reason =
        absl::StrCat("io_uring_setup failed: ", strerror(-ret),
                     " (kernel.io_uring_disabled, seccomp or an old kernel)");
    return;
  }
  caps->io_uring_available = true;
  for (const Named& f : kFeatures) {
    if (params.features & f.value) caps->features.push_back(f.name);
  }
  if (struct io_uring_probe* probe = io_uring_get_probe_ring(&ring)) {
    for (const Named& op : kOpcodes) {
      if (io_uring_opcode_supported(probe, static_cast<int>(op.value))) {
        caps->opcodes.push_back(op.name);
      }
    }
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  for (const SetupFlag& flag : kSetupFlags) {
    struct io_uring test;
    if (io_uring_queue_init(4, &test, flag.flag | flag.requires_flags) == 0) {
      caps->setup_flags.push_back(flag.name);
      io_uring_queue_exit(&test);
    }
  }
}

void ProbeHugePages(HostCapabilities* caps) {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::vector<absl::string_view> parts =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (parts.size() < 2) continue;
    uint64_t value = 0;
    if (!absl::SimpleAtoi(parts[1], &value)) continue;
    if (parts[0] == "HugePages_Total:") caps->huge_pages_total = value;
    if (parts[0] == "HugePages_Free:") caps->huge_pages_free = value;
    if (parts[0] == "Hugepagesize:") caps->huge_page_size_bytes = value * 1024;
  }
  // "always [madvise] never": the bracketed word is the mode.
  const std::string thp =
      ReadFirstLine("/sys/kernel/mm/transparent_hugepage/enabled");
  const size_t open = thp.find('['), close = thp.find(']');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    caps->transparent_huge_pages = thp.substr(open + 1, close - open - 1);
  }
}

}  // namespace

std::vector<std::string> SetupFlagNames(unsigned flags) {
  std::vector<std::string> names;
  for (const SetupFlag& flag : kSetupFlags) {
    if (flags & flag.flag) names.push_back(flag.name);
  }
  return names;
}

HostCapabilities ProbeHostCapabilities() {
  HostCapabilities caps;
  struct utsname name;
  if (uname(&name) == 0) {
    caps.kernel_release = name.release;
    caps.machine = name.machine;
  }
  ProbeRing(&caps);
  ProbeHugePages(&caps);
  return caps;
}

}  // namespace blkperf

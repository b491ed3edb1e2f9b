#include "daemon/engine/host/page_placement.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/unique_fd.h"

namespace blkperf::internal {
namespace {

constexpr uint64_t kPresent = uint64_t{1} << 63;
constexpr uint64_t kFrameMask = (uint64_t{1} << 55) - 1;
constexpr size_t kPageBytes = 4096;
constexpr size_t kEntriesPerRead = 8192;  // 64 KiB of pagemap, 32 MiB mapped

}  // namespace

double PagePlacement::AdjacentShare() const {
  return pairs == 0 ? 0.0
                    : static_cast<double>(adjacent_pairs) /
                          static_cast<double>(pairs);
}

void PagePlacement::Merge(const PagePlacement& other) {
  pages_present += other.pages_present;
  pairs += other.pairs;
  adjacent_pairs += other.adjacent_pairs;
}

void CountPagemapEntries(absl::Span<const uint64_t> entries,
                         int64_t* previous_frame, PagePlacement* placement) {
  for (const uint64_t entry : entries) {
    if ((entry & kPresent) == 0) {
      *previous_frame = -1;
      continue;
    }
    const auto frame = static_cast<int64_t>(entry & kFrameMask);
    ++placement->pages_present;
    if (*previous_frame >= 0) {
      ++placement->pairs;
      const int64_t step = frame - *previous_frame;
      if (step == 1 || step == -1) ++placement->adjacent_pairs;
    }
    *previous_frame = frame;
  }
}

absl::StatusOr<PagePlacement> ReadPagePlacement(const void* begin,
                                                size_t bytes) {
  const UniqueFd pagemap(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  if (!pagemap.valid()) {
    return absl::ErrnoToStatus(errno, "open /proc/self/pagemap");
  }
  const uint64_t first = reinterpret_cast<uintptr_t>(begin) / kPageBytes;
  const uint64_t pages = (bytes + kPageBytes - 1) / kPageBytes;
  PagePlacement placement;
  int64_t previous = -1;
  bool any_frame = false;
  std::array<uint64_t, kEntriesPerRead> entries;
  for (uint64_t done = 0; done < pages;) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(kEntriesPerRead, pages - done));
    const ssize_t got =
        pread(pagemap.get(), entries.data(), want * sizeof(uint64_t),
              static_cast<off_t>((first + done) * 8));
    if (got <= 0 || got % 8 != 0) {
      return absl::ErrnoToStatus(got < 0 ? errno : EIO,
                                 "read /proc/self/pagemap");
    }
    const size_t n = static_cast<size_t>(got) / 8;
    for (size_t i = 0; i < n; ++i) {
      any_frame |= (entries[i] & kPresent) != 0 && (entries[i] & kFrameMask) != 0;
    }
    CountPagemapEntries(absl::MakeConstSpan(entries.data(), n), &previous,
                        &placement);
    done += n;
  }
  if (placement.pages_present > 0 && !any_frame) {
    return absl::FailedPreconditionError(
        "the kernel hides page frames in /proc/self/pagemap (reading them "
        "needs CAP_SYS_ADMIN)");
  }
  return placement;
}

}  // namespace blkperf::internal

#include "report/fio_log.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace blkperf {
namespace {

struct DirectionCounts {
  uint64_t ios;
  uint64_t bytes;
};

DirectionCounts Counts(const ThreadSnapshot& t, int ddir) {
  switch (ddir) {
    case 0: return {t.read_ios, t.read_bytes};
    case 1: return {t.write_ios, t.write_bytes};
    default: return {t.trim_ios, t.trim_bytes};
  }
}

uint64_t MeanOfWindow(const LatencyHistogram& later,
                      const LatencyHistogram& earlier) {
  const uint64_t n = later.Count() - earlier.Count();
  return n == 0 ? 0 : (later.Sum() - earlier.Sum()) / n;
}

absl::Status OpenOne(const std::string& prefix, absl::string_view kind,
                     std::FILE** out) {
  if (prefix.empty()) return absl::OkStatus();
  const std::string path = absl::StrCat(prefix, "_", kind, ".1.log");
  *out = std::fopen(path.c_str(), "w");
  if (*out == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create fio log ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void Write(std::FILE* f, const std::string& line) {
  if (f != nullptr) std::fwrite(line.data(), 1, line.size(), f);
}

}  // namespace

std::string FioAverageLine(int64_t time_ms, uint64_t value, int ddir) {
  return absl::StrCat(time_ms, ", ", value, ", ", ddir, ", 0, 0\n");
}

std::string FioHistogramLine(int64_t time_ms, int ddir,
                             const LatencyHistogram& window) {
  uint64_t bins[kFioPlatBuckets] = {};
  for (const auto& [index, count] : window.NonEmptyBuckets()) {
    bins[std::min(index, kFioPlatBuckets - 1)] += count;
  }
  std::string line = absl::StrCat(time_ms, ", ", ddir, ", 0");
  for (uint64_t b : bins) absl::StrAppend(&line, ", ", b);
  return line + "\n";
}

absl::StatusOr<FioLogWriter> FioLogWriter::Open(const FioLogSettings& s) {
  FioLogWriter w(s);
  for (auto [prefix, kind, file] :
       {std::make_tuple(&s.iops_prefix, "iops", &w.iops_),
        std::make_tuple(&s.bw_prefix, "bw", &w.bw_),
        std::make_tuple(&s.lat_prefix, "lat", &w.lat_),
        std::make_tuple(&s.lat_prefix, "slat", &w.slat_),
        std::make_tuple(&s.lat_prefix, "clat", &w.clat_),
        std::make_tuple(&s.hist_prefix, "clat_hist", &w.hist_)}) {
    if (absl::Status st = OpenOne(*prefix, kind, file); !st.ok()) return st;
  }
  return w;
}

FioLogWriter::FioLogWriter(FioLogWriter&& other) noexcept
    : settings_(std::move(other.settings_)),
      iops_(std::exchange(other.iops_, nullptr)),
      bw_(std::exchange(other.bw_, nullptr)),
      lat_(std::exchange(other.lat_, nullptr)),
      slat_(std::exchange(other.slat_, nullptr)),
      clat_(std::exchange(other.clat_, nullptr)),
      hist_(std::exchange(other.hist_, nullptr)) {}

FioLogWriter::~FioLogWriter() { (void)Close(); }

bool FioLogWriter::wants_averages() const {
  return iops_ != nullptr || bw_ != nullptr || lat_ != nullptr;
}

void FioLogWriter::AddAverages(const WorkloadSnapshot& earlier,
                               const WorkloadSnapshot& later) {
  const double seconds = absl::ToDoubleSeconds(later.elapsed - earlier.elapsed);
  if (seconds <= 0) return;
  const int64_t ms = absl::ToInt64Milliseconds(later.elapsed);
  for (int ddir = 0; ddir < 3; ++ddir) {
    const DirectionCounts a = Counts(earlier.total, ddir);
    const DirectionCounts b = Counts(later.total, ddir);
    if (b.ios == 0 && ddir != settings_.latency_ddir) continue;  // fio: directions the job does
    Write(iops_, FioAverageLine(
                     ms, static_cast<uint64_t>((b.ios - a.ios) / seconds), ddir));
    Write(bw_, FioAverageLine(
                   ms, static_cast<uint64_t>((b.bytes - a.bytes) / seconds / 1024),
                   ddir));
  }
  const ThreadSnapshot& e = earlier.total;
  const ThreadSnapshot& l = later.total;
  const int d = settings_.latency_ddir;
  Write(lat_, FioAverageLine(ms, MeanOfWindow(l.latency, e.latency), d));
  Write(slat_, FioAverageLine(ms, MeanOfWindow(l.submit_latency, e.submit_latency), d));
  Write(clat_, FioAverageLine(
                   ms, MeanOfWindow(l.completion_latency, e.completion_latency), d));
}

void FioLogWriter::AddHistogram(const WorkloadSnapshot& earlier,
                                const WorkloadSnapshot& later) {
  if (hist_ == nullptr) return;
  LatencyHistogram window = later.total.completion_latency;
  window.Subtract(earlier.total.completion_latency);
  Write(hist_, FioHistogramLine(absl::ToInt64Milliseconds(later.elapsed),
                                settings_.latency_ddir, window));
}

absl::Status FioLogWriter::Close() {
  absl::Status status;
  for (std::FILE** f : {&iops_, &bw_, &lat_, &slat_, &clat_, &hist_}) {
    if (*f == nullptr) continue;
    if (std::fclose(*f) != 0 && status.ok()) {
      status = absl::InternalError(
          absl::StrCat("writing a fio log failed: ", std::strerror(errno)));
    }
    *f = nullptr;
  }
  return status;
}

}  // namespace blkperf

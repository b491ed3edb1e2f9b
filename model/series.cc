#include "model/series.h"

namespace blkperf {
namespace {

double PerSecond(uint64_t count, absl::Duration length) {
  const double seconds = absl::ToDoubleSeconds(length);
  return seconds > 0 ? static_cast<double>(count) / seconds : 0;
}

}  // namespace

double SeriesPoint::ReadIops() const { return PerSecond(read_ios, length); }
double SeriesPoint::WriteIops() const { return PerSecond(write_ios, length); }
double SeriesPoint::ReadBytesPerSecond() const {
  return PerSecond(read_bytes, length);
}
double SeriesPoint::WriteBytesPerSecond() const {
  return PerSecond(write_bytes, length);
}

}  // namespace blkperf

// fio's log files from interval snapshots: --write_iops_log, --write_bw_log,
// --write_lat_log (averaged over --log_avg_msec) and --write_hist_log (per
// --log_hist_msec), in fio 3.x's file names and columns, so fio2gnuplot,
// fio_generate_plots and fiologparser_hist.py read them (docs/fio.md).
//
//   FioLogWriter logs(settings);                 // opens PREFIX_iops.1.log...
//   logs.AddAverages(previous, current);         // every log_avg_msec
//   logs.AddHistogram(previous_hist, current);   // every log_hist_msec
//   logs.Close();
//
// Averaged lines: "TIME, VALUE, DDIR, 0, 0" (time in ms of measured run,
// ddir 0 read, 1 write, 2 trim, block size 0 and priority 0 as fio writes
// averaged samples). iops: I/Os per second over the window; bw: KiB/s;
// lat/slat/clat: the window's mean latency in ns. Histogram lines:
// "TIME, DDIR, 0, BIN0, ..., BIN1855": the completion latencies of the
// window in fio's 1856 io_u_plat buckets (blkperf's layout; a latency beyond
// fio's last bucket counts in it, as fio clamps).
#ifndef BLKPERF_REPORT_FIO_LOG_H_
#define BLKPERF_REPORT_FIO_LOG_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "model/histogram.h"
#include "model/snapshot.h"

namespace blkperf {

// fio's FIO_IO_U_PLAT_NR: the bins of a histogram log line.
inline constexpr int kFioPlatBuckets = 29 * 64;

struct FioLogSettings {
  std::string iops_prefix;  // "" = no such log
  std::string bw_prefix;
  std::string lat_prefix;   // writes PREFIX_lat, _slat and _clat
  std::string hist_prefix;
  // The one direction whose latencies the lat and hist logs carry (0 read,
  // 1 write, 2 trim): blkperf's histograms are not split by direction.
  int latency_ddir = 0;
};

// fio's log options as a job file (or the command line) gives them: file
// prefixes ("" = no such log) and windows in ms (0 = not given).
struct FioLogOptions {
  std::string iops_prefix;
  std::string bw_prefix;
  std::string lat_prefix;
  std::string hist_prefix;
  int64_t log_avg_msec = 0;
  int64_t log_hist_msec = 0;

  bool AnyLog() const {
    return !iops_prefix.empty() || !bw_prefix.empty() || !lat_prefix.empty() ||
           !hist_prefix.empty();
  }
};

// One averaged line for direction `ddir`.
std::string FioAverageLine(int64_t time_ms, uint64_t value, int ddir);

// One histogram line of `window` (a delta of two snapshots).
std::string FioHistogramLine(int64_t time_ms, int ddir,
                             const LatencyHistogram& window);

class FioLogWriter {
 public:
  // Opens (truncating) every file the settings ask for. InvalidArgument
  // naming the path when one cannot be created.
  static absl::StatusOr<FioLogWriter> Open(const FioLogSettings& settings);
  FioLogWriter(FioLogWriter&&) noexcept;
  FioLogWriter& operator=(FioLogWriter&&) = delete;
  ~FioLogWriter();

  bool wants_averages() const;
  bool wants_histograms() const { return hist_ != nullptr; }

  // The averages over [earlier, later] (two snapshots of one workload).
  void AddAverages(const WorkloadSnapshot& earlier,
                   const WorkloadSnapshot& later);
  // The completion-latency histogram of [earlier, later].
  void AddHistogram(const WorkloadSnapshot& earlier,
                    const WorkloadSnapshot& later);
  // Flushes and closes; the error names the file that failed.
  absl::Status Close();

 private:
  explicit FioLogWriter(const FioLogSettings& settings)
      : settings_(settings) {}

  FioLogSettings settings_;
  std::FILE* iops_ = nullptr;
  std::FILE* bw_ = nullptr;
  std::FILE* lat_ = nullptr;
  std::FILE* slat_ = nullptr;
  std::FILE* clat_ = nullptr;
  std::FILE* hist_ = nullptr;
};

}  // namespace blkperf

#endif  // BLKPERF_REPORT_FIO_LOG_H_

// Nothing lost: a result that the store cannot take now (down, locked past
// the busy timeout, full, damaged) waits in a local spool directory, one
// file per result, and is written the next time a result is saved to a
// store that takes it (or by `blkperf results flush`... any save).
//
//   SaveReport r = SaveOrSpool(opener, "/tmp/x/r.sqlite", spool_dir, record);
//   std::fputs(r.message.c_str(), stderr);   // what happened, in words
#ifndef BLKPERF_STORE_SPOOL_H_
#define BLKPERF_STORE_SPOOL_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/result_record.h"
#include "store/results_store.h"

namespace blkperf {

using StoreOpener = std::function<absl::StatusOr<std::unique_ptr<ResultsStore>>(
    absl::string_view location)>;

struct SaveReport {
  bool saved = false;       // the record (every record) is in the store
  int saved_count = 0;      // records of this save in the store
  std::string spool_file;   // else where it waits ("" if even that failed)
  int spooled_written = 0;  // earlier spooled records written now
  int spooled_left = 0;     // spooled records still waiting
  absl::Status error;       // why the store did not take it
  std::string message;      // lines for stderr; "" when saved and nothing spooled
};

// Opens the store at `location` with `open` (OpenResultsStore in use;
// tests pass their own), writes the spooled records of `spool_dir` first,
// then `record`; whatever the store does not take goes to (or stays in)
// `spool_dir`.
SaveReport SaveOrSpool(const StoreOpener& open, absl::string_view location,
                       const std::string& spool_dir, const ResultRecord& record);

// The records `next` yields (until nullopt), over one connection to the
// store and one record in memory at a time: a fleet result host by host.
// As SaveOrSpool for each; the message sums up (one line for all the
// records spooled).
SaveReport SaveOrSpoolEach(
    const StoreOpener& open, absl::string_view location,
    const std::string& spool_dir,
    const std::function<std::optional<ResultRecord>()>& next);

}  // namespace blkperf

#endif  // BLKPERF_STORE_SPOOL_H_

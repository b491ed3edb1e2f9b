// The results store's contract (results_store.h, spool.h) as one suite of
// value-parameterized tests that every backend passes: SQLite
// (store/store_test.cc) and PostgreSQL (store/postgres_store_test.cc, against
// a real server). A backend test provides a StoreBackend and instantiates:
//
//   INSTANTIATE_TEST_SUITE_P(Sqlite, StoreConformanceTest,
//                            ::testing::Values(SqliteBackend()),
//                            [](const auto& info) { return info.param.name; });
#ifndef BLKPERF_STORE_TESTING_STORE_CONFORMANCE_H_
#define BLKPERF_STORE_TESTING_STORE_CONFORMANCE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "store/result_record.h"
#include "store/results_store.h"

namespace blkperf {

struct StoreBackend {
  std::string name;
  // A location for a new, empty store of this backend (one per call).
  std::function<std::string()> fresh_location;
  // Opens `location` migrated to `version` (a previous schema in tests).
  std::function<absl::StatusOr<std::unique_ptr<ResultsStore>>(
      const std::string& location, int version)>
      open;
  // Runs `sql` on the store at `location` behind blkperf's back.
  std::function<absl::Status(const std::string& location,
                             const std::string& sql)>
      exec;
  // A location of this backend where no store answers (the store is down).
  std::string down_location;
};

// A record with every field set (binary protos included).
ResultRecord TestRecord(const std::string& host, int64_t created_unix_ns,
                        Tags tags = {});

class StoreConformanceTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  absl::StatusOr<std::unique_ptr<ResultsStore>> Open(
      const std::string& location, int version = kResultsSchemaVersion) {
    return GetParam().open(location, version);
  }
};

}  // namespace blkperf

#endif  // BLKPERF_STORE_TESTING_STORE_CONFORMANCE_H_

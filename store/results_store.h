// The results store: where every result is kept (docs/results.md). One
// schema with versioned migrations; SQLite by default (an embedded file in
// the user's data directory), PostgreSQL for a team
// (`postgresql://user@host/db`, credentials from libpq's own sources),
// `none` to keep nothing.
//
//   absl::StatusOr<std::unique_ptr<ResultsStore>> store =
//       OpenResultsStore("/tmp/x/results.sqlite");
//   BLKPERF_RETURN_IF_ERROR((*store)->Save(record));
//   absl::StatusOr<std::vector<ResultRecord>> runs =
//       (*store)->List({.tags = {{"case", "x"}}});
//
// Errors: FailedPrecondition for a store whose schema is newer than this
// blkperf knows, or a file that is not a results store (corrupt, another
// database); Unavailable when it cannot be opened or is locked past the busy
// timeout (the caller spools: spool.h). Thread-compatible: one store per
// thread; any number of stores (threads, processes) may write one database
// at once, each write a transaction.
#ifndef BLKPERF_STORE_RESULTS_STORE_H_
#define BLKPERF_STORE_RESULTS_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/result_record.h"

namespace blkperf {

// The schema version this blkperf writes (the migrations of
// store/sqlite_store.cc and store/postgres_store.cc, one version each).
inline constexpr int kResultsSchemaVersion = 2;

// All given conditions hold (an empty field: any).
struct ResultFilter {
  std::optional<int64_t> since_unix_ns;   // created at or after
  std::optional<int64_t> until_unix_ns;   // created before
  std::string hostname;
  std::string kernel_release;
  std::string target_model;
  std::string spec_hash;
  Tags tags;        // every one present with that value
  size_t limit = 1000;
};

class ResultsStore {
 public:
  virtual ~ResultsStore() = default;
  // Where it is, for messages: the path, never credentials.
  virtual std::string Describe() const = 0;
  virtual absl::Status Save(const ResultRecord& record) = 0;
  // Newest first; the big fields (report, protos) are left empty.
  virtual absl::StatusOr<std::vector<ResultRecord>> List(
      const ResultFilter& filter) = 0;
  // NotFound for an unknown id.
  virtual absl::StatusOr<ResultRecord> Get(absl::string_view id) = 0;
  virtual absl::Status Delete(absl::string_view id) = 0;
  virtual int SchemaVersion() = 0;
};

// `location`: a file path (SQLite, created with its directory when absent)
// or a "postgresql://" / "postgres://" URI (PostgreSQL). "none" is the
// caller's to handle.
absl::StatusOr<std::unique_ptr<ResultsStore>> OpenResultsStore(
    absl::string_view location);

// How long a write waits for another writer's lock before Unavailable.
inline constexpr int kStoreBusyTimeoutMs = 10'000;

// SQLite at `path`, migrated to `target_version` (tests: a previous
// schema). REQUIRES: 1 <= target_version <= kResultsSchemaVersion.
// A saved record whose id is already stored is a no-op (a spooled record
// written twice).
absl::StatusOr<std::unique_ptr<ResultsStore>> OpenSqliteStore(
    const std::string& path, int target_version = kResultsSchemaVersion,
    int busy_timeout_ms = kStoreBusyTimeoutMs);

// Whether `location` names a PostgreSQL store.
bool IsPostgresLocation(absl::string_view location);

// InvalidArgument naming --results_db for a location that can never be
// used: empty, or a PostgreSQL URI carrying a password (see
// OpenPostgresStore). Checked before a run, so such a flag costs nothing.
absl::Status CheckStoreLocation(absl::string_view location);

// PostgreSQL through libpq at `uri` ("postgresql://[user@]host[:port]/db
// [?sslmode=verify-full&...]"), migrated to `target_version`. Credentials
// come only from libpq's own sources (~/.pgpass or $PGPASSFILE,
// $PGPASSWORD, client certificates): a URI carrying a password (user:pw@ or
// password=) is InvalidArgument, as it would show in `ps` and logs. A
// server that does not answer within `connect_timeout_s` (unless the URI
// sets connect_timeout) or refuses is Unavailable; a database with a
// `results` table that is not blkperf's, or a newer schema, is
// FailedPrecondition. Migrations run under a transaction-scoped advisory
// lock, so concurrent first opens migrate once.
absl::StatusOr<std::unique_ptr<ResultsStore>> OpenPostgresStore(
    const std::string& uri, int target_version = kResultsSchemaVersion,
    int connect_timeout_s = 10);

}  // namespace blkperf

#endif  // BLKPERF_STORE_RESULTS_STORE_H_

// The SQLite results store: one file, WAL journal, a busy timeout so that
// concurrent writers wait for each other rather than fail, every write one
// IMMEDIATE transaction, and the schema migrated in one as well.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "base/status_macros.h"
#include "store/results_store.h"
#include "store/schema_sql.h"

namespace blkperf {
namespace {


absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what) {
  const std::string message =
      absl::StrCat(what, ": ", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      return absl::UnavailableError(message);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::FailedPreconditionError(
          absl::StrCat(message, " (not a blkperf results store, or damaged)"));
    default:
      return absl::InternalError(message);
  }
}

class Statement {
 public:
  Statement(sqlite3* db, absl::string_view sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()),
                             &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  absl::Status status() const {
    return rc_ == SQLITE_OK ? absl::OkStatus()
                            : SqliteError(db_, rc_, "preparing a statement");
  }
  Statement& Text(const std::string& v) {
    sqlite3_bind_text(stmt_, ++bound_, v.data(), static_cast<int>(v.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Blob(const std::string& v) {
    sqlite3_bind_blob(stmt_, ++bound_, v.data(), static_cast<int>(v.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Int(int64_t v) {
    sqlite3_bind_int64(stmt_, ++bound_, v);
    return *this;
  }
  Statement& Real(double v) {
    sqlite3_bind_double(stmt_, ++bound_, v);
    return *this;
  }
  // SQLITE_ROW: true; SQLITE_DONE: false; else an error.
  absl::StatusOr<bool> Step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, rc, "a results store statement");
  }
  std::string ColumnText(int i) const {
    const void* p = sqlite3_column_blob(stmt_, i);
    return p ? std::string(static_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
             : std::string();
  }
  int64_t ColumnInt(int i) const { return sqlite3_column_int64(stmt_, i); }
  double ColumnReal(int i) const { return sqlite3_column_double(stmt_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  int bound_ = 0;
};

absl::Status Exec(sqlite3* db, const char* sql, absl::string_view what) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? absl::OkStatus() : SqliteError(db, rc, what);
}

// mkdir -p of the directory holding `path`.
absl::Status MakeParentDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::UnavailableError(absl::StrCat(
          "cannot create ", BoundedText(dir), ": ", strerror(errno)));
    }
  }
  return absl::OkStatus();
}


ResultRecord ReadListColumns(const Statement& s) {
  ResultRecord r;
  r.id = s.ColumnText(0);
  r.created_unix_ns = s.ColumnInt(1);
  r.run_id = s.ColumnText(2);
  r.source = s.ColumnText(3);
  r.hostname = s.ColumnText(4);
  r.kernel_release = s.ColumnText(5);
  r.target_model = s.ColumnText(6);
  r.state = s.ColumnText(7);
  r.iops = s.ColumnReal(8);
  r.bytes_per_second = s.ColumnReal(9);
  r.p99_ns = static_cast<uint64_t>(s.ColumnInt(10));
  r.spec_summary = s.ColumnText(11);
  r.spec_hash = s.ColumnText(12);
  return r;
}

class SqliteStore final : public ResultsStore {
 public:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  std::string Describe() const override { return path_; }

  absl::Status Migrate(int target_version) {
    BLKPERF_RETURN_IF_ERROR(
        Exec(db_, "BEGIN IMMEDIATE", "locking the store to check its schema"));
    absl::Status status = MigrateLocked(target_version);
    if (!status.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return status;
    }
    return Exec(db_, "COMMIT", "committing the schema");
  }

  int SchemaVersion() override {
    Statement s(db_, "SELECT version FROM blkperf_schema");
    absl::StatusOr<bool> row = s.status().ok() ? s.Step() : false;
    return row.ok() && *row ? static_cast<int>(s.ColumnInt(0)) : 0;
  }

  absl::Status Save(const ResultRecord& r) override {
    BLKPERF_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", "locking the store"));
    absl::Status status = SaveLocked(r);
    if (!status.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return status;
    }
    return Exec(db_, "COMMIT", "committing a result");
  }

  absl::StatusOr<std::vector<ResultRecord>> List(
      const ResultFilter& f) override {
    std::string sql = absl::StrCat("SELECT ", kListColumns,
                                   " FROM results WHERE 1=1");
    if (f.since_unix_ns) sql += " AND created_unix_ns >= ?";
    if (f.until_unix_ns) sql += " AND created_unix_ns < ?";
    if (!f.hostname.empty()) sql += " AND hostname = ?";
    if (!f.kernel_release.empty()) sql += " AND kernel_release = ?";
    if (!f.target_model.empty()) sql += " AND target_model = ?";
    if (!f.spec_hash.empty()) sql += " AND spec_hash = ?";
    for (size_t i = 0; i < f.tags.size(); ++i) {
      sql += " AND EXISTS (SELECT 1 FROM tags WHERE result_id = results.id"
             " AND key = ? AND value = ?)";
    }
    sql += " ORDER BY created_unix_ns DESC, id LIMIT ?";
    Statement s(db_, sql);
    BLKPERF_RETURN_IF_ERROR(s.status());
    if (f.since_unix_ns) s.Int(*f.since_unix_ns);
    if (f.until_unix_ns) s.Int(*f.until_unix_ns);
    if (!f.hostname.empty()) s.Text(f.hostname);
    if (!f.kernel_release.empty()) s.Text(f.kernel_release);
    if (!f.target_model.empty()) s.Text(f.target_model);
    if (!f.spec_hash.empty()) s.Text(f.spec_hash);
    for (const auto& [k, v] : f.tags) s.Text(k).Text(v);
    s.Int(static_cast<int64_t>(f.limit));
    std::vector<ResultRecord> out;
    for (;;) {
      BLKPERF_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      out.push_back(ReadListColumns(s));
    }
    for (ResultRecord& r : out) BLKPERF_RETURN_IF_ERROR(ReadTags(&r));
    return out;
  }

  absl::StatusOr<ResultRecord> Get(absl::string_view id) override {
    Statement s(db_, absl::StrCat("SELECT ", kListColumns,
                                  ", report_json, spec_proto, snapshot_proto"
                                  " FROM results WHERE id = ?"));
    BLKPERF_RETURN_IF_ERROR(s.status());
    s.Text(std::string(id));
    BLKPERF_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) {
      return absl::NotFoundError(
          absl::StrCat("no result ", BoundedText(id), " in ", path_));
    }
    ResultRecord r = ReadListColumns(s);
    r.report_json = s.ColumnText(13);
    r.spec_proto = s.ColumnText(14);
    r.snapshot_proto = s.ColumnText(15);
    BLKPERF_RETURN_IF_ERROR(ReadTags(&r));
    return r;
  }

  absl::Status Delete(absl::string_view id) override {
    BLKPERF_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", "locking the store"));
    absl::Status status = DeleteLocked(std::string(id));
    if (!status.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return status;
    }
    return Exec(db_, "COMMIT", "committing a delete");
  }

 private:
  absl::Status MigrateLocked(int target_version) {
    Statement tables(db_,
                     "SELECT count(*), sum(name = 'blkperf_schema') FROM "
                     "sqlite_master WHERE type = 'table'");
    BLKPERF_RETURN_IF_ERROR(tables.status());
    BLKPERF_ASSIGN_OR_RETURN(bool row, tables.Step());
    const int64_t count = row ? tables.ColumnInt(0) : 0;
    const bool ours = row && tables.ColumnInt(1) == 1;
    if (count > 0 && !ours) {
      return absl::FailedPreconditionError(absl::StrCat(
          path_, " is an SQLite database but not a blkperf results store"));
    }
    const int version = ours ? SchemaVersion() : 0;
    if (version > kResultsSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrCat(
          "results store ", path_, " has schema version ", version,
          ", newer than this blkperf's ", kResultsSchemaVersion,
          ": use a newer blkperf, or another --results_db"));
    }
    const std::vector<std::string> migrations = Migrations(kSqliteTypes);
    for (int v = version + 1; v <= target_version; ++v) {
      BLKPERF_RETURN_IF_ERROR(Exec(db_, migrations[static_cast<size_t>(v - 1)].c_str(),
                                   absl::StrCat("schema migration ", v)));
      Statement set(db_, "UPDATE blkperf_schema SET version = ?");
      BLKPERF_RETURN_IF_ERROR(set.status());
      set.Int(v);
      BLKPERF_RETURN_IF_ERROR(set.Step().status());
    }
    return absl::OkStatus();
  }

  absl::Status SaveLocked(const ResultRecord& r) {
    Statement s(db_,
                "INSERT OR IGNORE INTO results VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    BLKPERF_RETURN_IF_ERROR(s.status());
    s.Text(r.id).Int(r.created_unix_ns).Text(r.run_id).Text(r.source);
    s.Text(r.hostname).Text(r.kernel_release).Text(r.target_model);
    s.Text(r.state).Real(r.iops).Real(r.bytes_per_second);
    s.Int(static_cast<int64_t>(r.p99_ns)).Text(r.spec_summary);
    s.Text(r.spec_hash).Text(r.report_json).Blob(r.spec_proto);
    s.Blob(r.snapshot_proto);
    BLKPERF_RETURN_IF_ERROR(s.Step().status());
    for (const auto& [k, v] : r.tags) {
      Statement t(db_, "INSERT OR IGNORE INTO tags VALUES (?, ?, ?)");
      BLKPERF_RETURN_IF_ERROR(t.status());
      t.Text(r.id).Text(k).Text(v);
      BLKPERF_RETURN_IF_ERROR(t.Step().status());
    }
    return absl::OkStatus();
  }

  absl::Status DeleteLocked(const std::string& id) {
    Statement tags(db_, "DELETE FROM tags WHERE result_id = ?");
    BLKPERF_RETURN_IF_ERROR(tags.status());
    tags.Text(id);
    BLKPERF_RETURN_IF_ERROR(tags.Step().status());
    Statement s(db_, "DELETE FROM results WHERE id = ?");
    BLKPERF_RETURN_IF_ERROR(s.status());
    s.Text(id);
    BLKPERF_RETURN_IF_ERROR(s.Step().status());
    if (sqlite3_changes(db_) == 0) {
      return absl::NotFoundError(
          absl::StrCat("no result ", BoundedText(id), " in ", path_));
    }
    return absl::OkStatus();
  }

  absl::Status ReadTags(ResultRecord* r) {
    Statement s(db_,
                "SELECT key, value FROM tags WHERE result_id = ? ORDER BY key");
    BLKPERF_RETURN_IF_ERROR(s.status());
    s.Text(r->id);
    for (;;) {
      BLKPERF_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return absl::OkStatus();
      r->tags.emplace_back(s.ColumnText(0), s.ColumnText(1));
    }
  }

  sqlite3* db_;
  const std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ResultsStore>> OpenSqliteStore(
    const std::string& path, int target_version, int busy_timeout_ms) {
  BLKPERF_RETURN_IF_ERROR(MakeParentDirs(path));
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status =
        SqliteError(db, rc, absl::StrCat("opening results store ", path));
    sqlite3_close_v2(db);
    return status;
  }
  auto store = std::make_unique<SqliteStore>(db, path);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  // WAL: readers never block the writer; a file system without it keeps the
  // rollback journal, which is only slower.
  sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
  absl::Status migrated = store->Migrate(target_version);
  if (!migrated.ok()) {
    return absl::Status(migrated.code(),
                        absl::StrCat("results store ", path, ": ",
                                     migrated.message()));
  }
  return store;
}

bool IsPostgresLocation(absl::string_view location) {
  return absl::StartsWith(location, "postgresql://") ||
         absl::StartsWith(location, "postgres://");
}

absl::StatusOr<std::unique_ptr<ResultsStore>> OpenResultsStore(
    absl::string_view location) {
  if (IsPostgresLocation(location)) {
    return OpenPostgresStore(std::string(location));
  }
  if (location.empty()) {
    return absl::InvalidArgumentError("--results_db: empty path");
  }
  return OpenSqliteStore(std::string(location));
}

}  // namespace blkperf

// The PostgreSQL results store, for a team: the same schema, migrations,
// semantics and errors as the SQLite store (results_store.h), through libpq.
// Every write is one transaction; concurrent first opens migrate once under
// a transaction-scoped advisory lock. Credentials never pass through
// blkperf: libpq reads them from its own sources (~/.pgpass, $PGPASSFILE,
// $PGPASSWORD, client certificates), and a URI that carries a password is
// refused.
#include <postgresql/libpq-fe.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/bounded_text.h"
#include "base/status_macros.h"
#include "store/results_store.h"
#include "store/schema_sql.h"

namespace blkperf {
namespace {


// The advisory lock key the migrations hold ("blkperf" in ASCII).
constexpr char kMigrationLock[] = "SELECT pg_advisory_xact_lock(31084830926218866)";


// %xx decoded (libpq decodes URI parameter names the same way).
std::string PercentDecoded(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        absl::SimpleHexAtoi(text.substr(i + 1, 2), &value)) {
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// InvalidArgument when the URI itself carries a password.
absl::Status CheckNoPassword(absl::string_view uri) {
  absl::string_view rest = uri.substr(uri.find("://") + 3);
  const absl::string_view authority = rest.substr(0, rest.find_first_of("/?"));
  const size_t at = authority.rfind('@');
  const bool in_userinfo = at != absl::string_view::npos &&
                           absl::StrContains(authority.substr(0, at), ':');
  bool in_query = false;
  if (const size_t q = rest.find('?'); q != absl::string_view::npos) {
    for (absl::string_view param : absl::StrSplit(rest.substr(q + 1), '&')) {
      const std::string key = PercentDecoded(param.substr(0, param.find('=')));
      if (absl::AsciiStrToLower(key) == "password") in_query = true;
    }
  }
  if (in_userinfo || in_query) {
    return absl::InvalidArgumentError(
        "--results_db: a password in the PostgreSQL URI would show in `ps`, "
        "logs and shell history; put it where libpq reads it (~/.pgpass or "
        "$PGPASSFILE, $PGPASSWORD) or use client certificates "
        "(sslmode=verify-full), and leave it out of the URI");
  }
  return absl::OkStatus();
}

// libpq's message, one bounded line.
std::string PqMessage(const char* text) {
  return OneLine(absl::StripAsciiWhitespace(text ? text : ""),
                 kMaxLogLineBytes);
}

absl::Status ResultError(PGresult* result, PGconn* conn,
                         absl::string_view what) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE)
                             : nullptr;
  const std::string sqlstate = state ? state : "";
  const std::string message = absl::StrCat(
      what, ": ",
      PqMessage(result ? PQresultErrorMessage(result) : PQerrorMessage(conn)));
  // Connection (08), resources such as a full disk (53), operator
  // intervention such as a shutdown (57), serialization and deadlock (40):
  // the store cannot take it now. Otherwise a defect or a foreign schema.
  if (sqlstate.empty() || absl::StartsWith(sqlstate, "08") ||
      absl::StartsWith(sqlstate, "53") || absl::StartsWith(sqlstate, "57") ||
      absl::StartsWith(sqlstate, "40") || PQstatus(conn) != CONNECTION_OK) {
    return absl::UnavailableError(message);
  }
  if (absl::StartsWith(sqlstate, "42")) {
    return absl::FailedPreconditionError(
        absl::StrCat(message, " (not a blkperf results store, or damaged)"));
  }
  return absl::InternalError(message);
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// One parameterized statement's arguments: text, or binary for BYTEA.
class Params {
 public:
  Params& Text(std::string v) { return Add(std::move(v), 0); }
  Params& Bytes(std::string v) { return Add(std::move(v), 1); }
  Params& Int(int64_t v) { return Add(absl::StrCat(v), 0); }
  Params& Real(double v) { return Add(absl::StrFormat("%.17g", v), 0); }
  int size() const { return static_cast<int>(values_.size()); }
  std::vector<const char*> Values() const {
    std::vector<const char*> out;
    for (const std::string& v : values_) out.push_back(v.data());
    return out;
  }
  std::vector<int> Lengths() const {
    std::vector<int> out;
    for (const std::string& v : values_) out.push_back(static_cast<int>(v.size()));
    return out;
  }
  const std::vector<int>& Formats() const { return formats_; }

 private:
  Params& Add(std::string v, int format) {
    values_.push_back(std::move(v));
    formats_.push_back(format);
    return *this;
  }
  std::vector<std::string> values_;
  std::vector<int> formats_;
};

std::string Column(PGresult* r, int row, int column) {
  return std::string(PQgetvalue(r, row, column),
                     static_cast<size_t>(PQgetlength(r, row, column)));
}

int64_t IntColumn(PGresult* r, int row, int column) {
  int64_t v = 0;
  (void)absl::SimpleAtoi(Column(r, row, column), &v);
  return v;
}

double RealColumn(PGresult* r, int row, int column) {
  double v = 0;
  (void)absl::SimpleAtod(Column(r, row, column), &v);
  return v;
}

// A BYTEA column in text form ("\x0a0b...") as bytes.
std::string BytesColumn(PGresult* r, int row, int column) {
  size_t length = 0;
  unsigned char* bytes = PQunescapeBytea(
      reinterpret_cast<const unsigned char*>(PQgetvalue(r, row, column)),
      &length);
  if (bytes == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(bytes), length);
  PQfreemem(bytes);
  return out;
}

ResultRecord ReadListColumns(PGresult* r, int row) {
  ResultRecord out;
  out.id = Column(r, row, 0);
  out.created_unix_ns = IntColumn(r, row, 1);
  out.run_id = Column(r, row, 2);
  out.source = Column(r, row, 3);
  out.hostname = Column(r, row, 4);
  out.kernel_release = Column(r, row, 5);
  out.target_model = Column(r, row, 6);
  out.state = Column(r, row, 7);
  out.iops = RealColumn(r, row, 8);
  out.bytes_per_second = RealColumn(r, row, 9);
  out.p99_ns = static_cast<uint64_t>(IntColumn(r, row, 10));
  out.spec_summary = Column(r, row, 11);
  out.spec_hash = Column(r, row, 12);
  return out;
}

class PostgresStore final : public ResultsStore {
 public:
  PostgresStore(PGconn* conn, std::string uri)
      : conn_(conn), uri_(std::move(uri)) {}
  ~PostgresStore() override { PQfinish(conn_); }

  std::string Describe() const override { return uri_; }

  absl::Status Migrate(int target_version) {
    return InTransaction("the schema",
                         [&] { return MigrateLocked(target_version); });
  }

  int SchemaVersion() override {
    absl::StatusOr<Result> r = Query("SELECT version FROM blkperf_schema", {},
                                     "reading the schema version");
    return r.ok() && PQntuples(r->get()) == 1
               ? static_cast<int>(IntColumn(r->get(), 0, 0))
               : 0;
  }

  absl::Status Save(const ResultRecord& r) override {
    return InTransaction("a result", [&] { return SaveLocked(r); });
  }

  absl::StatusOr<std::vector<ResultRecord>> List(
      const ResultFilter& f) override {
    Params p;
    std::string sql = absl::StrCat("SELECT ", kListColumns,
                                   " FROM results WHERE true");
    // The parameter is added (the third argument) before the condition.
    auto where = [&](absl::string_view column, absl::string_view op,
                     const Params&) {
      absl::StrAppend(&sql, " AND ", column, " ", op, " $", p.size());
    };
    if (f.since_unix_ns) where("created_unix_ns", ">=", p.Int(*f.since_unix_ns));
    if (f.until_unix_ns) where("created_unix_ns", "<", p.Int(*f.until_unix_ns));
    if (!f.hostname.empty()) where("hostname", "=", p.Text(f.hostname));
    if (!f.kernel_release.empty()) {
      where("kernel_release", "=", p.Text(f.kernel_release));
    }
    if (!f.target_model.empty()) where("target_model", "=", p.Text(f.target_model));
    if (!f.spec_hash.empty()) where("spec_hash", "=", p.Text(f.spec_hash));
    for (const auto& [k, v] : f.tags) {
      p.Text(k).Text(v);
      absl::StrAppend(&sql,
                      " AND EXISTS (SELECT 1 FROM tags WHERE result_id ="
                      " results.id AND key = $", p.size() - 1,
                      " AND value = $", p.size(), ")");
    }
    p.Int(static_cast<int64_t>(f.limit));
    absl::StrAppend(&sql, " ORDER BY created_unix_ns DESC, id LIMIT $",
                    p.size());
    BLKPERF_ASSIGN_OR_RETURN(Result rows, Query(sql, p, "listing results"));
    std::vector<ResultRecord> out;
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      out.push_back(ReadListColumns(rows.get(), i));
    }
    for (ResultRecord& r : out) BLKPERF_RETURN_IF_ERROR(ReadTags(&r));
    return out;
  }

  absl::StatusOr<ResultRecord> Get(absl::string_view id) override {
    BLKPERF_ASSIGN_OR_RETURN(
        Result rows,
        Query(absl::StrCat("SELECT ", kListColumns,
                           ", report_json, spec_proto, snapshot_proto"
                           " FROM results WHERE id = $1"),
              Params().Text(std::string(id)), "reading a result"));
    if (PQntuples(rows.get()) != 1) {
      return absl::NotFoundError(
          absl::StrCat("no result ", BoundedText(id), " in ", uri_));
    }
    ResultRecord r = ReadListColumns(rows.get(), 0);
    r.report_json = Column(rows.get(), 0, 13);
    r.spec_proto = BytesColumn(rows.get(), 0, 14);
    r.snapshot_proto = BytesColumn(rows.get(), 0, 15);
    BLKPERF_RETURN_IF_ERROR(ReadTags(&r));
    return r;
  }

  absl::Status Delete(absl::string_view id) override {
    // The tags go with it (ON DELETE CASCADE).
    BLKPERF_ASSIGN_OR_RETURN(
        Result r, Query("DELETE FROM results WHERE id = $1",
                        Params().Text(std::string(id)), "deleting a result"));
    if (std::string(PQcmdTuples(r.get())) == "0") {
      return absl::NotFoundError(
          absl::StrCat("no result ", BoundedText(id), " in ", uri_));
    }
    return absl::OkStatus();
  }

 private:
  // Runs `sql`; an error for anything but rows or a completed command.
  absl::StatusOr<Result> Query(const std::string& sql, const Params& p,
                               absl::string_view what) {
    const std::vector<const char*> values = p.Values();
    const std::vector<int> lengths = p.Lengths();
    Result r(p.size() == 0
                 ? PQexec(conn_, sql.c_str())
                 : PQexecParams(conn_, sql.c_str(), p.size(), nullptr,
                                values.data(), lengths.data(),
                                p.Formats().data(), /*resultFormat=*/0));
    const ExecStatusType status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      return ResultError(r.get(), conn_, what);
    }
    return r;
  }

  template <typename Body>
  absl::Status InTransaction(absl::string_view what, Body body) {
    BLKPERF_RETURN_IF_ERROR(
        Query("BEGIN", {}, absl::StrCat("starting to write ", what)).status());
    absl::Status status = body();
    if (!status.ok()) {
      PQclear(PQexec(conn_, "ROLLBACK"));
      return status;
    }
    return Query("COMMIT", {}, absl::StrCat("committing ", what)).status();
  }

  absl::Status MigrateLocked(int target_version) {
    BLKPERF_RETURN_IF_ERROR(
        Query(kMigrationLock, {}, "locking the schema").status());
    BLKPERF_ASSIGN_OR_RETURN(
        Result tables,
        Query("SELECT to_regclass('blkperf_schema') IS NOT NULL,"
              " to_regclass('results') IS NOT NULL",
              {}, "checking the schema"));
    const bool ours = Column(tables.get(), 0, 0) == "t";
    if (!ours && Column(tables.get(), 0, 1) == "t") {
      return absl::FailedPreconditionError(absl::StrCat(
          uri_, " has a `results` table but is not a blkperf results store"));
    }
    const int version = ours ? SchemaVersion() : 0;
    if (version > kResultsSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrCat(
          "results store ", uri_, " has schema version ", version,
          ", newer than this blkperf's ", kResultsSchemaVersion,
          ": use a newer blkperf, or another --results_db"));
    }
    const std::vector<std::string> migrations = Migrations(kPostgresTypes);
    for (int v = version + 1; v <= target_version; ++v) {
      BLKPERF_RETURN_IF_ERROR(Query(migrations[static_cast<size_t>(v - 1)].c_str(), {},
                                    absl::StrCat("schema migration ", v))
                                  .status());
      BLKPERF_RETURN_IF_ERROR(Query("UPDATE blkperf_schema SET version = $1",
                                    Params().Int(v), "setting the schema")
                                  .status());
    }
    return absl::OkStatus();
  }

  absl::Status SaveLocked(const ResultRecord& r) {
    Params p;
    p.Text(r.id).Int(r.created_unix_ns).Text(r.run_id).Text(r.source);
    p.Text(r.hostname).Text(r.kernel_release).Text(r.target_model);
    p.Text(r.state).Real(r.iops).Real(r.bytes_per_second);
    p.Int(static_cast<int64_t>(r.p99_ns)).Text(r.spec_summary);
    p.Text(r.spec_hash).Text(r.report_json).Bytes(r.spec_proto);
    p.Bytes(r.snapshot_proto);
    BLKPERF_RETURN_IF_ERROR(
        Query("INSERT INTO results VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
              " $9, $10, $11, $12, $13, $14, $15, $16)"
              " ON CONFLICT (id) DO NOTHING",
              p, "saving a result")
            .status());
    for (const auto& [k, v] : r.tags) {
      BLKPERF_RETURN_IF_ERROR(
          Query("INSERT INTO tags VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                Params().Text(r.id).Text(k).Text(v), "saving a tag")
              .status());
    }
    return absl::OkStatus();
  }

  absl::Status ReadTags(ResultRecord* r) {
    BLKPERF_ASSIGN_OR_RETURN(
        Result rows,
        Query("SELECT key, value FROM tags WHERE result_id = $1 ORDER BY key",
              Params().Text(r->id), "reading tags"));
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      r->tags.emplace_back(Column(rows.get(), i, 0), Column(rows.get(), i, 1));
    }
    return absl::OkStatus();
  }

  PGconn* conn_;
  const std::string uri_;
};

}  // namespace

absl::Status CheckStoreLocation(absl::string_view location) {
  if (location.empty()) {
    return absl::InvalidArgumentError("--results_db: empty path");
  }
  return IsPostgresLocation(location) ? CheckNoPassword(location)
                                      : absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ResultsStore>> OpenPostgresStore(
    const std::string& uri, int target_version, int connect_timeout_s) {
  BLKPERF_RETURN_IF_ERROR(CheckNoPassword(uri));
  // Named as given: it carries no password (checked above).
  const std::string shown = OneLine(uri, kMaxPathEchoBytes);
  // Later keywords win: the URI's own connect_timeout overrides ours.
  const std::string timeout = absl::StrCat(connect_timeout_s);
  const char* keywords[] = {"connect_timeout", "application_name", "dbname",
                            nullptr};
  const char* values[] = {timeout.c_str(), "blkperf", uri.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot connect to results store ", shown, ": ",
                     PqMessage(conn ? PQerrorMessage(conn) : "out of memory")));
    PQfinish(conn);
    return status;
  }
  // Notices (e.g. "relation exists") are not the user's business.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  auto store = std::make_unique<PostgresStore>(conn, shown);
  absl::Status migrated = store->Migrate(target_version);
  if (!migrated.ok()) {
    return absl::Status(migrated.code(),
                        absl::StrCat("results store ", shown, ": ",
                                     migrated.message()));
  }
  return store;
}

}  // namespace blkperf

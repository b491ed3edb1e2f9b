// The results store's schema, written once for both backends (SQLite,
// PostgreSQL) with each one's column types: versioned migrations and the
// columns `List` reads. Internal to //store.
//
//   std::vector<std::string> m = Migrations(kPostgresTypes);
//   // m[v - 1] takes a store from schema version v - 1 to v.
#ifndef BLKPERF_STORE_SCHEMA_SQL_H_
#define BLKPERF_STORE_SCHEMA_SQL_H_

#include <string>
#include <vector>

namespace blkperf {

struct SqlTypes {
  const char* integer;  // 64-bit
  const char* real;     // double
  const char* blob;     // bytes
};
inline constexpr SqlTypes kSqliteTypes{"INTEGER", "REAL", "BLOB"};
inline constexpr SqlTypes kPostgresTypes{"BIGINT", "DOUBLE PRECISION", "BYTEA"};

// Migration N (index N - 1) takes the schema from version N-1 to N; there
// are kResultsSchemaVersion of them. Never edit one that shipped: add the
// next.
std::vector<std::string> Migrations(const SqlTypes& types);

// The columns of a listed result, in ReadListColumns' order.
inline constexpr char kListColumns[] =
    "id, created_unix_ns, run_id, source, hostname, kernel_release,"
    " target_model, state, iops, bytes_per_second, p99_ns, spec_summary,"
    " spec_hash";

}  // namespace blkperf

#endif  // BLKPERF_STORE_SCHEMA_SQL_H_

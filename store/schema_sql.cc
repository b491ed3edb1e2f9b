#include "store/schema_sql.h"

#include "absl/strings/str_cat.h"

namespace blkperf {

std::vector<std::string> Migrations(const SqlTypes& t) {
  return {
      // 1: results and their tags.
      absl::StrCat(
          "CREATE TABLE blkperf_schema (version INTEGER NOT NULL);"
          "INSERT INTO blkperf_schema VALUES (0);"
          "CREATE TABLE results ("
          "  id TEXT PRIMARY KEY, created_unix_ns ", t.integer, " NOT NULL,"
          "  run_id TEXT NOT NULL, source TEXT NOT NULL, hostname TEXT NOT NULL,"
          "  kernel_release TEXT NOT NULL, target_model TEXT NOT NULL,"
          "  state TEXT NOT NULL, iops ", t.real, " NOT NULL,"
          " bytes_per_second ", t.real, " NOT NULL,"
          "  p99_ns ", t.integer, " NOT NULL, spec_summary TEXT NOT NULL,"
          "  spec_hash TEXT NOT NULL, report_json TEXT NOT NULL,"
          "  spec_proto ", t.blob, " NOT NULL, snapshot_proto ", t.blob,
          " NOT NULL);"
          "CREATE TABLE tags ("
          "  result_id TEXT NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
          "  key TEXT NOT NULL, value TEXT NOT NULL,"
          " PRIMARY KEY (result_id, key));"),
      // 2: indexes for the list filters.
      "CREATE INDEX results_by_time ON results (created_unix_ns);"
      "CREATE INDEX results_by_host ON results (hostname, kernel_release);"
      "CREATE INDEX tags_by_value ON tags (key, value);",
  };
}

}  // namespace blkperf

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/result_record.h"
#include "store/results_store.h"
#include "store/spool.h"
#include "store/testing/store_conformance.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TempPath(const std::string& name) {
  static int counter = 0;
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", getpid(), "_", counter++, "_",
                      name);
}

StoreBackend SqliteBackend() {
  return StoreBackend{
      .name = "Sqlite",
      .fresh_location = [] { return TempPath("dir/sub/results.sqlite"); },
      .open =
          [](const std::string& path, int version) {
            return OpenSqliteStore(path, version);
          },
      .exec = [](const std::string& path, const std::string& sql) {
        std::filesystem::create_directories(
            std::filesystem::path(path).parent_path());
        sqlite3* db = nullptr;
        int rc = sqlite3_open(path.c_str(), &db);
        if (rc == SQLITE_OK) {
          rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
        }
        absl::Status status =
            rc == SQLITE_OK ? absl::OkStatus()
                            : absl::InternalError(sqlite3_errmsg(db));
        sqlite3_close(db);
        return status;
      },
      // Under a regular file: it cannot be created.
      .down_location = "/dev/null/results.sqlite",
  };
}

INSTANTIATE_TEST_SUITE_P(Sqlite, StoreConformanceTest,
                         ::testing::Values(SqliteBackend()),
                         [](const auto& info) { return info.param.name; });

ResultRecord Record(const std::string& host, int64_t when, Tags tags = {}) {
  return TestRecord(host, when, std::move(tags));
}

TEST(ResultsStoreTest, CorruptOrForeignFileIsAClearError) {
  const std::string garbage = TempPath("garbage.sqlite");
  std::ofstream(garbage) << std::string(8192, 'x');
  auto store = OpenSqliteStore(garbage);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("not a blkperf results store"));

  const std::string foreign = TempPath("foreign.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  store = OpenSqliteStore(foreign);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("not a blkperf results store"));
}

TEST(PostgresLocationTest, APasswordInTheUriIsRefusedAndNeverEchoed) {
  for (const char* uri :
       {"postgresql://u:s3cr3t@127.0.0.1:1/db",
        "postgres://u:s3cr3t@[::1]:1/db?sslmode=disable",
        "postgresql://127.0.0.1:1/db?sslmode=disable&password=s3cr3t",
        "postgresql://127.0.0.1:1/db?pass%77ord=s3cr3t"}) {
    auto store = OpenResultsStore(uri);
    ASSERT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument) << uri;
    EXPECT_THAT(store.status().message(), HasSubstr("--results_db")) << uri;
    EXPECT_THAT(store.status().message(), HasSubstr(".pgpass")) << uri;
    EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cr3t"))) << uri;
  }
}

TEST(PostgresLocationTest, AServerThatDoesNotAnswerIsUnavailable) {
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  auto store = OpenResultsStore("postgresql://blkperf@127.0.0.1:1/db");
  ASSERT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("127.0.0.1:1"));
}

TEST(SpoolTest, ALockedStoreSpoolsAndTheNextSaveWritesIt) {
  const std::string path = TempPath("results.sqlite");
  const std::string spool = path + ".spool";
  ASSERT_TRUE(OpenSqliteStore(path).ok());
  // Another writer holds the database for the whole first save.
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  const StoreOpener impatient = [](absl::string_view location) {
    return OpenSqliteStore(std::string(location), kResultsSchemaVersion,
                           /*busy_timeout_ms=*/50);
  };
  const ResultRecord first = Record("h1", 1, {{"case", "spool"}});
  const SaveReport r1 = SaveOrSpool(impatient, path, spool, first);
  EXPECT_FALSE(r1.saved);
  EXPECT_EQ(r1.error.code(), absl::StatusCode::kUnavailable);
  ASSERT_FALSE(r1.spool_file.empty());
  EXPECT_THAT(r1.message, HasSubstr(first.id));
  EXPECT_THAT(r1.message, HasSubstr("written when the store"));
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);

  const ResultRecord second = Record("h1", 2, {{"case", "spool"}});
  const SaveReport r2 = SaveOrSpool(impatient, path, spool, second);
  EXPECT_TRUE(r2.saved) << r2.error;
  EXPECT_EQ(r2.spooled_written, 1);
  EXPECT_EQ(r2.spooled_left, 0);
  EXPECT_THAT(r2.message, HasSubstr("wrote 1 spooled"));
  EXPECT_NE(access(r1.spool_file.c_str(), F_OK), 0);
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok());
  auto back = (*store)->Get(first.id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeRecord(*back), EncodeRecord(first));
  EXPECT_EQ((*store)->List({.tags = {{"case", "spool"}}})->size(), 2u);
}

TEST(SpoolTest, AStoreThatCannotBeOpenedSpools) {
  const std::string blocker = TempPath("a_file");
  std::ofstream(blocker) << "x";
  const std::string path = blocker + "/results.sqlite";  // under a file
  const std::string spool = TempPath("spool");
  const SaveReport r =
      SaveOrSpool(OpenResultsStore, path, spool, Record("h", 1));
  EXPECT_FALSE(r.saved);
  EXPECT_FALSE(r.spool_file.empty());
  EXPECT_EQ(access(r.spool_file.c_str(), R_OK), 0);
}

TEST(ResultRecordTest, EncodingRoundTripsAndRejectsDamage) {
  const ResultRecord r = Record("h", 42, {{"a", "b=c"}});
  const std::string bytes = EncodeRecord(r);
  absl::StatusOr<ResultRecord> back = DecodeRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeRecord(*back), bytes);
  EXPECT_EQ(back->iops, r.iops);
  EXPECT_EQ(DecodeRecord(bytes.substr(0, bytes.size() - 3)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeRecord("junk").status().code(), absl::StatusCode::kDataLoss);
}

TEST(ResultRecordTest, TagsAreCheckedNamingTheFlag) {
  absl::StatusOr<Tags> tags = ParseTags("z=1,case=x", "--tag");
  ASSERT_TRUE(tags.ok()) << tags.status();
  EXPECT_EQ(*tags, (Tags{{"case", "x"}, {"z", "1"}}));
  for (const char* bad : {"novalue", "=x", "a b=1", "a=1,a=2", "k=\x01"}) {
    absl::StatusOr<Tags> t = ParseTags(bad, "--tag");
    ASSERT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(t.status().message(), HasSubstr("--tag")) << bad;
  }
}

}  // namespace
}  // namespace blkperf

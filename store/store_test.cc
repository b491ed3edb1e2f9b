#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
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

namespace blkperf {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  static int counter = 0;
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", getpid(), "_", counter++, "_",
                      name);
}

ResultRecord Record(const std::string& host, int64_t when, Tags tags = {}) {
  ResultRecord r;
  r.id = NewResultId();
  r.created_unix_ns = when;
  r.run_id = "w1";
  r.source = "test";
  r.hostname = host;
  r.kernel_release = "6.1.0";
  r.target_model = "QEMU";
  r.state = "finished";
  r.iops = 1234.5;
  r.bytes_per_second = 5e6;
  r.p99_ns = 777;
  r.spec_summary = "randread bs=4.00KiB";
  r.spec_hash = "fnv1a64:0000000000000001";
  r.tags = std::move(tags);
  r.report_json = "{\"state\":\"finished\"}";
  r.spec_proto = std::string("\x08\x00\x01", 3);
  r.snapshot_proto = std::string("\x00\xff", 2);
  return r;
}

TEST(ResultsStoreTest, SavedResultsComeBackWhole) {
  const std::string path = TempPath("dir/sub/results.sqlite");
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->SchemaVersion(), kResultsSchemaVersion);
  const ResultRecord r = Record("h1", 100, {{"case", "x"}, {"disk", "a"}});
  ASSERT_TRUE((*store)->Save(r).ok());
  absl::StatusOr<ResultRecord> back = (*store)->Get(r.id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeRecord(*back), EncodeRecord(r));
  EXPECT_EQ((*store)->Get("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(ResultsStoreTest, ListFiltersByTagHostAndTimeNewestFirst) {
  auto store = OpenSqliteStore(TempPath("results.sqlite"));
  ASSERT_TRUE(store.ok()) << store.status();
  const ResultRecord a = Record("h1", 100, {{"case", "x"}});
  const ResultRecord b = Record("h2", 200, {{"case", "x"}, {"k", "v"}});
  const ResultRecord c = Record("h1", 300, {{"case", "y"}});
  for (const ResultRecord& r : {a, b, c}) ASSERT_TRUE((*store)->Save(r).ok());
  auto ids = [&](const ResultFilter& f) {
    std::vector<std::string> out;
    const absl::StatusOr<std::vector<ResultRecord>> listed = (*store)->List(f);
    EXPECT_TRUE(listed.ok()) << listed.status();
    if (listed.ok()) {
      for (const ResultRecord& r : *listed) out.push_back(r.id);
    }
    return out;
  };
  EXPECT_THAT(ids({}), ::testing::ElementsAre(c.id, b.id, a.id));
  EXPECT_THAT(ids({.tags = {{"case", "x"}}}), ::testing::ElementsAre(b.id, a.id));
  EXPECT_THAT(ids({.tags = {{"case", "x"}, {"k", "v"}}}),
              ::testing::ElementsAre(b.id));
  EXPECT_THAT(ids({.hostname = "h1"}), ::testing::ElementsAre(c.id, a.id));
  EXPECT_THAT(ids({.since_unix_ns = 150, .until_unix_ns = 300}),
              ::testing::ElementsAre(b.id));
  const auto listed = *(*store)->List({.tags = {{"k", "v"}}});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].tags, b.tags);
  EXPECT_TRUE(listed[0].report_json.empty());  // List leaves the big fields
  ASSERT_TRUE((*store)->Delete(b.id).ok());
  EXPECT_THAT(ids({.tags = {{"case", "x"}}}), ::testing::ElementsAre(a.id));
  EXPECT_EQ((*store)->Delete(b.id).code(), absl::StatusCode::kNotFound);
}

TEST(ResultsStoreTest, ConcurrentWritersLoseNothing) {
  const std::string path = TempPath("results.sqlite");
  ASSERT_TRUE(OpenSqliteStore(path).ok());
  constexpr int kWriters = 4, kEach = 25;
  std::vector<std::thread> writers;
  std::vector<absl::Status> errors(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto store = OpenSqliteStore(path);  // its own connection
      if (!store.ok()) {
        errors[w] = store.status();
        return;
      }
      for (int i = 0; i < kEach; ++i) {
        absl::Status s = (*store)->Save(Record(absl::StrCat("w", w), i));
        if (!s.ok()) errors[w] = s;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const absl::Status& e : errors) EXPECT_TRUE(e.ok()) << e;
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->List({})->size(), size_t{kWriters * kEach});
}

TEST(ResultsStoreTest, MigratesAStoreOfThePreviousSchemaKeepingItsResults) {
  const std::string path = TempPath("results.sqlite");
  const ResultRecord r = Record("h1", 5, {{"case", "old"}});
  {
    auto v1 = OpenSqliteStore(path, /*target_version=*/1);
    ASSERT_TRUE(v1.ok()) << v1.status();
    EXPECT_EQ((*v1)->SchemaVersion(), 1);
    ASSERT_TRUE((*v1)->Save(r).ok());
  }
  auto now = OpenSqliteStore(path);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ((*now)->SchemaVersion(), kResultsSchemaVersion);
  EXPECT_EQ((*now)->List({.tags = {{"case", "old"}}})->size(), 1u);
  // The index migration 2 adds is there.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int indexes = 0;
  sqlite3_exec(
      db, "SELECT name FROM sqlite_master WHERE name = 'results_by_time'",
      [](void* n, int, char**, char**) { ++*static_cast<int*>(n); return 0; },
      &indexes, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(indexes, 1);
}

TEST(ResultsStoreTest, NewerSchemaIsAClearError) {
  const std::string path = TempPath("results.sqlite");
  ASSERT_TRUE(OpenSqliteStore(path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE blkperf_schema SET version = 99", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = OpenSqliteStore(path);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("schema version 99"));
  EXPECT_THAT(store.status().message(), HasSubstr("newer"));
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

TEST(ResultsStoreTest, PostgresqlIsRefusedClearlyNotIgnored) {
  auto store = OpenResultsStore("postgresql://db.example/blkperf");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnimplemented);
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

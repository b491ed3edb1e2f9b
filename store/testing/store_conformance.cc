#include "store/testing/store_conformance.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "store/spool.h"

namespace blkperf {

ResultRecord TestRecord(const std::string& host, int64_t when, Tags tags) {
  ResultRecord r;
  r.id = NewResultId();
  r.created_unix_ns = when;
  r.run_id = "w1";
  r.source = "test";
  r.hostname = host;
  r.kernel_release = "6.1.0";
  r.target_model = "QEMU";
  r.state = "finished";
  r.iops = 1234.56789012345;
  r.bytes_per_second = 5e6 / 3;
  r.p99_ns = 777;
  r.spec_summary = "randread bs=4.00KiB";
  r.spec_hash = "fnv1a64:0000000000000001";
  r.tags = std::move(tags);
  r.report_json = "{\"state\":\"finished\",\"s\":\"a\\\\b'c\"}";
  r.spec_proto = std::string("\x08\x00\x01", 3);
  r.snapshot_proto = std::string("\x00\xff\\x", 4);
  return r;
}

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_P(StoreConformanceTest, SavedResultsComeBackWhole) {
  auto store = Open(GetParam().fresh_location());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->SchemaVersion(), kResultsSchemaVersion);
  const ResultRecord r = TestRecord("h1", 100, {{"case", "x"}, {"disk", "a"}});
  ASSERT_TRUE((*store)->Save(r).ok());
  ASSERT_TRUE((*store)->Save(r).ok());  // a spooled record written twice
  absl::StatusOr<ResultRecord> back = (*store)->Get(r.id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeRecord(*back), EncodeRecord(r));
  EXPECT_EQ((*store)->List({})->size(), 1u);
  EXPECT_EQ((*store)->Get("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, ListFiltersByTagHostAndTimeNewestFirst) {
  auto store = Open(GetParam().fresh_location());
  ASSERT_TRUE(store.ok()) << store.status();
  const ResultRecord a = TestRecord("h1", 100, {{"case", "x"}});
  const ResultRecord b = TestRecord("h2", 200, {{"case", "x"}, {"k", "v"}});
  ResultRecord c = TestRecord("h1", 300, {{"case", "y"}});
  c.kernel_release = "6.9.0";
  c.target_model = "Samsung SSD 980";
  c.spec_hash = "fnv1a64:0000000000000002";
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
  EXPECT_THAT(ids({}), ElementsAre(c.id, b.id, a.id));
  EXPECT_THAT(ids({.limit = 2}), ElementsAre(c.id, b.id));
  EXPECT_THAT(ids({.tags = {{"case", "x"}}}), ElementsAre(b.id, a.id));
  EXPECT_THAT(ids({.tags = {{"case", "x"}, {"k", "v"}}}), ElementsAre(b.id));
  EXPECT_THAT(ids({.hostname = "h1"}), ElementsAre(c.id, a.id));
  EXPECT_THAT(ids({.kernel_release = "6.9.0"}), ElementsAre(c.id));
  EXPECT_THAT(ids({.target_model = "Samsung SSD 980"}), ElementsAre(c.id));
  EXPECT_THAT(ids({.spec_hash = "fnv1a64:0000000000000002"}), ElementsAre(c.id));
  EXPECT_THAT(ids({.since_unix_ns = 150, .until_unix_ns = 300}),
              ElementsAre(b.id));
  const auto listed = *(*store)->List({.tags = {{"k", "v"}}});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].tags, b.tags);
  EXPECT_EQ(listed[0].iops, b.iops);
  EXPECT_TRUE(listed[0].report_json.empty());  // List leaves the big fields
  ASSERT_TRUE((*store)->Delete(b.id).ok());
  EXPECT_THAT(ids({.tags = {{"case", "x"}}}), ElementsAre(a.id));
  EXPECT_EQ((*store)->Delete(b.id).code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, ConcurrentWritersLoseNothing) {
  const std::string location = GetParam().fresh_location();
  constexpr int kWriters = 4, kEach = 25;
  std::vector<std::thread> writers;
  std::vector<absl::Status> errors(kWriters);
  // Every writer opens the new store at once: the first open's migration
  // races the others'.
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto store = Open(location);  // its own connection
      if (!store.ok()) {
        errors[w] = store.status();
        return;
      }
      for (int i = 0; i < kEach; ++i) {
        absl::Status s = (*store)->Save(
            TestRecord(absl::StrCat("w", w), i, {{"writer", absl::StrCat(w)}}));
        if (!s.ok()) errors[w] = s;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const absl::Status& e : errors) EXPECT_TRUE(e.ok()) << e;
  auto store = Open(location);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->List({})->size(), size_t{kWriters * kEach});
  EXPECT_EQ((*store)->List({.tags = {{"writer", "2"}}})->size(), size_t{kEach});
}

TEST_P(StoreConformanceTest, MigratesAStoreOfThePreviousSchemaKeepingItsResults) {
  const std::string location = GetParam().fresh_location();
  const ResultRecord r = TestRecord("h1", 5, {{"case", "old"}});
  {
    auto v1 = Open(location, /*version=*/1);
    ASSERT_TRUE(v1.ok()) << v1.status();
    EXPECT_EQ((*v1)->SchemaVersion(), 1);
    ASSERT_TRUE((*v1)->Save(r).ok());
  }
  auto now = Open(location);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ((*now)->SchemaVersion(), kResultsSchemaVersion);
  EXPECT_EQ((*now)->List({.tags = {{"case", "old"}}})->size(), 1u);
  absl::StatusOr<ResultRecord> back = (*now)->Get(r.id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeRecord(*back), EncodeRecord(r));
  // Migration 2's index exists: creating it again fails.
  EXPECT_FALSE(GetParam()
                   .exec(location,
                         "CREATE INDEX results_by_time ON results (id)")
                   .ok());
}

TEST_P(StoreConformanceTest, NewerSchemaIsAClearError) {
  const std::string location = GetParam().fresh_location();
  ASSERT_TRUE(Open(location).ok());
  ASSERT_TRUE(
      GetParam().exec(location, "UPDATE blkperf_schema SET version = 99").ok());
  auto store = Open(location);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("schema version 99"));
  EXPECT_THAT(store.status().message(), HasSubstr("newer"));
}

TEST_P(StoreConformanceTest, AForeignResultsTableIsAClearError) {
  const std::string location = GetParam().fresh_location();
  ASSERT_TRUE(GetParam().exec(location, "CREATE TABLE results (x INTEGER)").ok());
  auto store = Open(location);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("not a blkperf results store"));
}

TEST_P(StoreConformanceTest, AStoreThatIsDownSpoolsAndIsWrittenWhenBack) {
  const std::string spool = absl::StrCat(
      std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp",
      "/spool_", GetParam().name, "_", getpid());
  const StoreOpener open = [&](absl::string_view location) {
    return Open(std::string(location));
  };
  const ResultRecord first = TestRecord("h1", 1, {{"case", "spool"}});
  const SaveReport down =
      SaveOrSpool(open, GetParam().down_location, spool, first);
  EXPECT_FALSE(down.saved);
  EXPECT_EQ(down.error.code(), absl::StatusCode::kUnavailable) << down.error;
  ASSERT_FALSE(down.spool_file.empty()) << down.message;
  EXPECT_THAT(down.message, HasSubstr(first.id));
  EXPECT_THAT(down.message, HasSubstr("written when the store"));

  const std::string location = GetParam().fresh_location();
  const ResultRecord second = TestRecord("h1", 2, {{"case", "spool"}});
  const SaveReport back = SaveOrSpool(open, location, spool, second);
  EXPECT_TRUE(back.saved) << back.error;
  EXPECT_EQ(back.spooled_written, 1);
  EXPECT_EQ(back.spooled_left, 0);
  EXPECT_THAT(back.message, HasSubstr("wrote 1 spooled"));
  EXPECT_NE(access(down.spool_file.c_str(), F_OK), 0);
  auto store = Open(location);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<ResultRecord> got = (*store)->Get(first.id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(EncodeRecord(*got), EncodeRecord(first));
  EXPECT_EQ((*store)->List({.tags = {{"case", "spool"}}})->size(), 2u);
}

}  // namespace
}  // namespace blkperf

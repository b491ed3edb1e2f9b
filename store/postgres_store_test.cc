// The results store's contract against a real PostgreSQL server
// (store/testing/with_postgres.sh starts it and sets $BLKPERF_TEST_POSTGRES):
// the conformance suite every backend passes, plus what is PostgreSQL's own
// (credentials from libpq's sources only). Without a server the test fails.
#include <postgresql/libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/results_store.h"
#include "store/testing/store_conformance.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Server() {
  const char* uri = std::getenv("BLKPERF_TEST_POSTGRES");
  return uri ? uri : "";
}

absl::Status Exec(const std::string& uri, const std::string& sql) {
  PGconn* conn = PQconnectdb(uri.c_str());
  absl::Status status = absl::OkStatus();
  if (PQstatus(conn) != CONNECTION_OK) {
    status = absl::UnavailableError(PQerrorMessage(conn));
  } else {
    PGresult* r = PQexec(conn, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK &&
        PQresultStatus(r) != PGRES_TUPLES_OK) {
      status = absl::InternalError(PQresultErrorMessage(r));
    }
    PQclear(r);
  }
  PQfinish(conn);
  return status;
}

// A new database per call, on the test's server.
std::string FreshDatabase() {
  static std::atomic<int> counter{0};
  const std::string name = absl::StrCat("t", getpid(), "_", counter++);
  const absl::Status created =
      Exec(Server() + "/postgres", absl::StrCat("CREATE DATABASE ", name));
  EXPECT_TRUE(created.ok()) << created;
  return absl::StrCat(Server(), "/", name);
}

StoreBackend PostgresBackend() {
  return StoreBackend{
      .name = "Postgres",
      .fresh_location = FreshDatabase,
      .open =
          [](const std::string& uri, int version) {
            return OpenPostgresStore(uri, version);
          },
      .exec = Exec,
      // Nothing listens on port 1 of loopback.
      .down_location = "postgresql://blkperf@127.0.0.1:1/blkperf",
  };
}

class PostgresEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_FALSE(Server().empty())
        << "no $BLKPERF_TEST_POSTGRES: run under store/testing/with_postgres.sh";
    ASSERT_TRUE(Exec(Server() + "/postgres", "SELECT 1").ok());
  }
};
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new PostgresEnvironment);

INSTANTIATE_TEST_SUITE_P(Postgres, StoreConformanceTest,
                         ::testing::Values(PostgresBackend()),
                         [](const auto& info) { return info.param.name; });

TEST(PostgresStoreTest, OpensThroughOpenResultsStoreWithThePasswordFromPgpass) {
  ASSERT_NE(std::getenv("PGPASSFILE"), nullptr);
  const std::string uri = FreshDatabase();
  auto store = OpenResultsStore(uri);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Describe(), uri);
  EXPECT_EQ((*store)->SchemaVersion(), kResultsSchemaVersion);
}

TEST(PostgresStoreTest, AWrongPasswordIsUnavailableAndNeverEchoed) {
  const std::string uri = FreshDatabase();
  const std::string pgpass =
      absl::StrCat(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                              : "/tmp",
                   "/wrong_", getpid(), ".pgpass");
  FILE* f = std::fopen(pgpass.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("*:*:*:blkperf:Wr0ngPassw0rd\n", f);
  std::fclose(f);
  ASSERT_EQ(chmod(pgpass.c_str(), 0600), 0);
  const std::string saved = std::getenv("PGPASSFILE");
  setenv("PGPASSFILE", pgpass.c_str(), 1);
  auto store = OpenResultsStore(uri);
  setenv("PGPASSFILE", saved.c_str(), 1);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("password authentication"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("Wr0ngPassw0rd")));
}

}  // namespace
}  // namespace blkperf

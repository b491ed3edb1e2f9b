#include "fleet/inventory.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Addresses(const Inventory& inventory) {
  std::vector<std::string> a;
  for (const Host& h : inventory.hosts) a.push_back(h.address);
  return a;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << text;
  return path;
}

TEST(InventoryTest, CommaList) {
  absl::StatusOr<Inventory> inv =
      LoadInventory("a.example:7777, 10.0.0.2:7778,[::1]:7777");
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_THAT(Addresses(*inv),
              ElementsAre("a.example:7777", "10.0.0.2:7778", "[::1]:7777"));
}

TEST(InventoryTest, ListErrorsNameTheEntry) {
  absl::StatusOr<Inventory> inv = LoadInventory("a:1,b,c:3");
  ASSERT_EQ(inv.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(inv.status().message(), HasSubstr("hosts entry 2"));  // from 1
  EXPECT_THAT(inv.status().message(), HasSubstr("\"b\""));
  inv = LoadInventory("a:1,a:99999");
  EXPECT_THAT(inv.status().message(), HasSubstr("no valid port"));
  inv = LoadInventory("a:1,,b:2");
  EXPECT_THAT(inv.status().message(), HasSubstr("hosts entry 2 is empty"));
  inv = LoadInventory("::1:7777");
  EXPECT_THAT(inv.status().message(), HasSubstr("[addr]:port"));
}

// Entries are echoed as base/bounded_text.h echoes client text: escaped
// and cut, so a hosts file cannot reach the terminal with an escape
// sequence or flood the message.
TEST(InventoryTest, ErrorsEchoEntriesEscapedAndBounded) {
  absl::StatusOr<Inventory> inv = LoadInventory("a:1,evil\x1b[2Jhost");
  ASSERT_EQ(inv.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(inv.status().message(), HasSubstr("\"evil\\u001b[2Jhost\""));
  EXPECT_THAT(std::string(inv.status().message()),
              Not(HasSubstr("\x1b")));
  inv = LoadInventory(std::string(5000, 'h'));
  ASSERT_EQ(inv.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(inv.status().message(), HasSubstr("(+4872 bytes)"));
  EXPECT_LT(inv.status().message().size(), 400u);
}

TEST(InventoryTest, DuplicatesRefused) {
  absl::StatusOr<Inventory> inv = LoadInventory("a:1,b:2,a:1");
  ASSERT_EQ(inv.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(inv.status().message(), HasSubstr("hosts entry 3: duplicate host \"a:1\""));
}

TEST(InventoryTest, HostFileWithComments) {
  const std::string path =
      WriteTemp("hosts.txt", "# storage rack 1\nh1:7777\n\n  h2:7777  # spare\n");
  absl::StatusOr<Inventory> inv = LoadInventory("@" + path);
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_THAT(Addresses(*inv), ElementsAre("h1:7777", "h2:7777"));
  absl::StatusOr<Inventory> bad =
      ParseHostFile("h1:7777\nh2\n", "hosts.txt");
  EXPECT_THAT(bad.status().message(), HasSubstr("hosts.txt:2"));
  bad = ParseHostFile("h1:7777\n\nh1:7777\n", "hosts.txt");
  EXPECT_THAT(bad.status().message(), HasSubstr("hosts.txt:3: duplicate"));
  bad = ParseHostFile("# nothing\n", "empty.txt");
  EXPECT_THAT(bad.status().message(), HasSubstr("names no host"));
  EXPECT_EQ(LoadInventory("@/nonexistent/hosts").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(InventoryTest, FileSdJsonMapsMetricsToControlPort) {
  const std::string json = R"([
    {"targets": ["h1:9477", "h2:9477"], "labels": {"blkperf_grpc": "7000", "rack": "r1"}},
    {"targets": ["h3:9477"]}
  ])";
  const std::string path = WriteTemp("fleet.json", json);
  absl::StatusOr<Inventory> inv = LoadInventory(path);
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_THAT(Addresses(*inv), ElementsAre("h1:7000", "h2:7000", "h3:7777"));
  EXPECT_EQ(inv->hosts[0].metrics_address, "h1:9477");
  EXPECT_EQ(inv->hosts[0].labels.at("rack"), "r1");
}

TEST(InventoryTest, FileSdJsonErrorsNameGroupAndTarget) {
  absl::StatusOr<Inventory> inv =
      ParseFileSdJson(R"([{"targets": ["h1:9477"]}, {"targets": ["h2"]}])",
                      "f.json");
  EXPECT_THAT(inv.status().message(), HasSubstr("f.json: group 1 target 0"));
  inv = ParseFileSdJson(
      R"([{"targets": ["h1:9477"], "labels": {"blkperf_grpc": "x"}}])", "f.json");
  EXPECT_THAT(inv.status().message(), HasSubstr("label blkperf_grpc"));
  inv = ParseFileSdJson(R"([{"targets": ["h1:9477"]}, {"targets": ["h1:9478"]}])",
                        "f.json");
  EXPECT_THAT(inv.status().message(), HasSubstr("duplicate host \"h1:7777\""));
  inv = ParseFileSdJson(R"({"targets": []})", "f.json");
  EXPECT_EQ(inv.status().code(), absl::StatusCode::kInvalidArgument);
  inv = ParseFileSdJson(R"([{"target": ["h1:1"]}])", "f.json");
  EXPECT_THAT(inv.status().message(), HasSubstr("unexpected field \"target\""));
}

TEST(InventoryTest, FileSdYaml) {
  const std::string yaml =
      "- targets: ['h1:9477', 'h2:9477']\n"
      "  labels:\n"
      "    blkperf_grpc: '7001'\n"
      "- targets:\n"
      "  - '[fd00::3]:9477'\n";
  const std::string path = WriteTemp("fleet.yml", yaml);
  absl::StatusOr<Inventory> inv = LoadInventory(path);
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_THAT(Addresses(*inv),
              ElementsAre("h1:7001", "h2:7001", "[fd00::3]:7777"));
  absl::StatusOr<Inventory> bad = ParseFileSdYaml("- targets: [h1]\n", "f.yaml");
  EXPECT_THAT(bad.status().message(), HasSubstr("f.yaml: group 0 target 0"));
  bad = ParseFileSdYaml("- targets: [h1:1\n", "f.yaml");
  EXPECT_THAT(bad.status().message(), HasSubstr("YAML does not parse"));
  bad = ParseFileSdYaml("- hosts: [h1:1]\n", "f.yaml");
  EXPECT_THAT(bad.status().message(), HasSubstr("line 1"));
}

TEST(InventoryTest, FileSdRoundTrip) {
  absl::StatusOr<Inventory> inv = LoadInventory("h1:7000,[::1]:7001");
  ASSERT_TRUE(inv.ok());
  const std::string json = FormatFileSd(*inv, 9477);
  absl::StatusOr<Inventory> back = ParseFileSdJson(json, "written.json");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << json;
  EXPECT_THAT(Addresses(*back), ElementsAre("h1:7000", "[::1]:7001"));
  EXPECT_EQ(back->hosts[1].metrics_address, "[::1]:9477");
}

TEST(InventoryTest, FileSdIsTheSameBytesEveryTime) {
  Inventory inv;
  inv.hosts.push_back(Host{"h1:7000", "", {{"rack", "r\"1"}, {"zone", "b"}, {"host", "h1"}}});
  inv.hosts.push_back(Host{"h2:7001", "h2:9500", {}});
  const std::string json = FormatFileSd(inv, 9477);
  EXPECT_EQ(json,
            "[\n"
            "  {\n    \"targets\": [\"h1:9477\"],\n    \"labels\": {\n"
            "      \"blkperf_grpc\": \"7000\",\n      \"host\": \"h1\",\n"
            "      \"rack\": \"r\\\"1\",\n      \"zone\": \"b\"\n    }\n  },\n"
            "  {\n    \"targets\": [\"h2:9500\"],\n    \"labels\": {\n"
            "      \"blkperf_grpc\": \"7001\"\n    }\n  }\n"
            "]");
  absl::StatusOr<Inventory> back = ParseFileSdJson(json, "written.json");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << json;
  EXPECT_EQ(back->hosts[0].labels.at("rack"), "r\"1");
}

TEST(InventoryTest, DnsResolvesEveryRecord) {
  absl::StatusOr<Inventory> inv = LoadInventory("dns:///localhost:7777");
  ASSERT_TRUE(inv.ok()) << inv.status();
  ASSERT_FALSE(inv->hosts.empty());
  for (const Host& h : inv->hosts) {
    EXPECT_TRUE(h.address == "127.0.0.1:7777" || h.address == "[::1]:7777")
        << h.address;
  }
  EXPECT_EQ(LoadInventory("dns:///no-such-host.invalid:7777").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(LoadInventory("dns:///localhost").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blkperf::fleet

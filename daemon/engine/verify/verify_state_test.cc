#include "daemon/engine/verify/verify_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "daemon/engine/verify/verify_block.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

// A made-up identity per name (these tests open no target).
VerifyStateKey KeyOf(absl::string_view name) {
  return {.device = 1, .inode = VerifyTargetId(name)};
}

class VerifyStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = std::string(tmp != nullptr ? tmp : "/tmp") + "/verify_state_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::string dir_;
};

TEST_F(VerifyStateTest, GenerationsSurviveAReopen) {
  {
    auto s = VerifyStateFile::Open(dir_, KeyOf("/t/a"), "/t/a", 4096, 100,
                                   VerifyStateFile::kCreateOrLoad);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_FALSE((*s)->loaded());
    (*s)->entries()[7] = 3;
    (*s)->entries()[99] = 1;
  }
  auto s = VerifyStateFile::Open(dir_, KeyOf("/t/a"), "/t/a", 4096, 100,
                                 VerifyStateFile::kLoad);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE((*s)->loaded());
  EXPECT_EQ((*s)->entries()[7], 3u);
  EXPECT_EQ((*s)->entries()[99], 1u);
  EXPECT_EQ((*s)->entries()[0], 0u);
  struct stat st;
  ASSERT_EQ(stat((*s)->path().c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), 4096u + 100 * 4);
}

TEST_F(VerifyStateTest, AWriteInFlightAtTheEndBecomesUncertain) {
  {
    auto s = VerifyStateFile::Open(dir_, KeyOf("/t/b"), "/t/b", 4096, 10,
                                   VerifyStateFile::kCreateOrLoad);
    ASSERT_TRUE(s.ok());
    (*s)->entries()[1] = 5 | kVerifyWriteInFlight;
    (*s)->entries()[2] = 4 | kVerifyReadInFlight;
  }
  auto s = VerifyStateFile::Open(dir_, KeyOf("/t/b"), "/t/b", 4096, 10,
                                 VerifyStateFile::kLoad);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->entries()[1], 5u | kVerifyUncertain);
  EXPECT_EQ((*s)->entries()[2], 4u);
  EXPECT_NE((*s)->note().find("1 block(s)"), std::string::npos);
}

// A state is one run's at a time: a second open (another run writing or
// verifying the same target) is refused naming the target while the first
// lives, and succeeds once it is gone.
TEST_F(VerifyStateTest, ASecondRunIsRefusedWhileTheFirstHoldsTheState) {
  auto first = VerifyStateFile::Open(dir_, KeyOf("/t/held"), "/t/held", 4096, 10,
                                     VerifyStateFile::kCreateOrLoad);
  ASSERT_TRUE(first.ok()) << first.status();
  for (VerifyStateFile::Mode mode :
       {VerifyStateFile::kLoad, VerifyStateFile::kCreateOrLoad}) {
    auto second = VerifyStateFile::Open(dir_, KeyOf("/t/held"), "/t/held", 4096, 10, mode);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(second.status().message().find("/t/held"), std::string::npos)
        << second.status();
    EXPECT_NE(second.status().message().find("held by another run"),
              std::string::npos)
        << second.status();
  }
  (*first)->Unlock();  // the run ended (kept for its results)
  auto after_unlock = VerifyStateFile::Open(dir_, KeyOf("/t/held"), "/t/held", 4096, 10,
                                            VerifyStateFile::kLoad);
  EXPECT_TRUE(after_unlock.ok()) << after_unlock.status();
  after_unlock->reset();
  first->reset();
  auto again = VerifyStateFile::Open(dir_, KeyOf("/t/held"), "/t/held", 4096, 10,
                                     VerifyStateFile::kLoad);
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST_F(VerifyStateTest, LoadRefusesMissingOrOtherBlockSize) {
  auto missing = VerifyStateFile::Open(dir_, KeyOf("/t/none"), "/t/none", 4096, 10,
                                       VerifyStateFile::kLoad);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(VerifyStateFile::Open(dir_, KeyOf("/t/c"), "/t/c", 4096, 10,
                                    VerifyStateFile::kCreateOrLoad)
                  .ok());
  auto other = VerifyStateFile::Open(dir_, KeyOf("/t/c"), "/t/c", 8192, 5,
                                     VerifyStateFile::kLoad);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("block_size 4096"),
            std::string::npos);
  // A writing run starts over, and says so.
  auto fresh = VerifyStateFile::Open(dir_, KeyOf("/t/c"), "/t/c", 8192, 5,
                                     VerifyStateFile::kCreateOrLoad);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE((*fresh)->loaded());
  EXPECT_NE((*fresh)->note().find("new verify state"), std::string::npos);
}

TEST_F(VerifyStateTest, SizeIsBounded) {
  auto s = VerifyStateFile::Open(dir_, KeyOf("/t/huge"), "/t/huge", 512,
                                 kMaxVerifyStateBlocks + 1,
                                 VerifyStateFile::kCreateOrLoad);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("block_size"), std::string::npos);
}

TEST_F(VerifyStateTest, NeverFollowsALink) {
  ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
  const std::string victim = dir_ + "/victim";
  ASSERT_EQ(close(open(victim.c_str(), O_CREAT | O_WRONLY, 0600)), 0);
  ASSERT_EQ(symlink(victim.c_str(),
                    VerifyStateFile::FilePath(dir_, KeyOf("/t/link")).c_str()),
            0);
  auto s = VerifyStateFile::Open(dir_, KeyOf("/t/link"), "/t/link", 4096, 10,
                                 VerifyStateFile::kCreateOrLoad);
  EXPECT_FALSE(s.ok());
  struct stat st;
  ASSERT_EQ(stat(victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
}

TEST_F(VerifyStateTest, FillWritesEveryBlockAsTheNextGeneration) {
  ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
  const std::string file = dir_ + "/target";
  ASSERT_EQ(truncate(file.c_str(), 0), -1);
  const int fd = open(file.c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 64 * 4096), 0);
  auto s = VerifyStateFile::Open(dir_, KeyOf(file), file, 4096, 64,
                                 VerifyStateFile::kCreateOrLoad);
  ASSERT_TRUE(s.ok());
  (*s)->entries()[5] = 7;
  ASSERT_TRUE(FillTargetForVerify(fd, file, 4096, 11, s->get()).ok());
  std::vector<unsigned char> block(4096);
  for (uint64_t b = 0; b < 64; ++b) {
    const uint64_t gen = b == 5 ? 8 : 1;
    ASSERT_EQ((*s)->entries()[b], gen) << b;
    ASSERT_EQ(pread(fd, block.data(), 4096, b * 4096), 4096);
    ASSERT_TRUE(BlockIsGood({VerifyTargetId(file), b * 4096, 4096, 11}, gen,
                            gen, block.data()))
        << b;
  }
  close(fd);
}

TEST_F(VerifyStateTest, EverySpellingOfOneTargetSharesOneState) {
  const VerifyStateKey key{.device = 0x803, .inode = 42};
  {
    auto s = VerifyStateFile::Open(dir_, key, "rw/f", 4096, 10,
                                   VerifyStateFile::kCreateOrLoad);
    ASSERT_TRUE(s.ok()) << s.status();
    (*s)->entries()[2] = 5;
  }
  for (const char* alias : {"rw/./f", "rw//f", "rw/hard-link-of-f"}) {
    auto s = VerifyStateFile::Open(dir_, key, alias, 4096, 10,
                                   VerifyStateFile::kLoad);
    ASSERT_TRUE(s.ok()) << alias << ": " << s.status();
    EXPECT_EQ((*s)->entries()[2], 5u) << alias;
    // The blocks carry the id of the spelling that made the state.
    EXPECT_EQ((*s)->target_id(), VerifyTargetId("rw/f")) << alias;
  }
  // A plain write through another spelling discards the one state.
  EXPECT_TRUE(VerifyStateFile::Discard(dir_, key));
  EXPECT_EQ(VerifyStateFile::Open(dir_, key, "rw/f", 4096, 10,
                                  VerifyStateFile::kLoad)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  // Another inode of the same device is another state.
  EXPECT_NE(VerifyStateFile::FilePath(dir_, key),
            VerifyStateFile::FilePath(dir_, {.device = 0x803, .inode = 43}));
  EXPECT_NE(VerifyStateFile::FilePath(dir_, {.block_device = true,
                                             .device = 0x700}),
            VerifyStateFile::FilePath(dir_, {.device = 0x700}));
}

TEST_F(VerifyStateTest, TheNumberOfStatesIsCapped) {
  ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
  for (size_t i = 0; i + 1 < kMaxVerifyStates; ++i) {
    const std::string name = absl::StrCat(dir_, "/other-", i, ".state");
    ASSERT_EQ(close(open(name.c_str(), O_CREAT | O_WRONLY, 0600)), 0);
  }
  const VerifyStateKey last{.device = 9, .inode = 1};
  ASSERT_TRUE(VerifyStateFile::Open(dir_, last, "/t/last", 4096, 10,
                                    VerifyStateFile::kCreateOrLoad)
                  .ok());
  auto refused = VerifyStateFile::Open(dir_, {.device = 9, .inode = 2},
                                       "/t/one-too-many", 4096, 10,
                                       VerifyStateFile::kCreateOrLoad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("/t/one-too-many"),
            std::string::npos);
  EXPECT_NE(refused.status().message().find("limit"), std::string::npos);
  struct stat st;
  EXPECT_NE(stat(VerifyStateFile::FilePath(dir_, {.device = 9, .inode = 2})
                     .c_str(),
                 &st),
            0);
  // An existing state still opens at the cap.
  EXPECT_TRUE(VerifyStateFile::Open(dir_, last, "/t/last", 4096, 10,
                                    VerifyStateFile::kCreateOrLoad)
                  .ok());
}

}  // namespace
}  // namespace blkperf

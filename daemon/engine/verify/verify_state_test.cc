#include "daemon/engine/verify/verify_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "daemon/engine/verify/verify_block.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

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
    auto s = VerifyStateFile::Open(dir_, "/t/a", 4096, 100,
                                   VerifyStateFile::kCreateOrLoad);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_FALSE((*s)->loaded());
    (*s)->entries()[7] = 3;
    (*s)->entries()[99] = 1;
  }
  auto s = VerifyStateFile::Open(dir_, "/t/a", 4096, 100,
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
    auto s = VerifyStateFile::Open(dir_, "/t/b", 4096, 10,
                                   VerifyStateFile::kCreateOrLoad);
    ASSERT_TRUE(s.ok());
    (*s)->entries()[1] = 5 | kVerifyWriteInFlight;
    (*s)->entries()[2] = 4 | kVerifyReadInFlight;
  }
  auto s = VerifyStateFile::Open(dir_, "/t/b", 4096, 10,
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
  auto first = VerifyStateFile::Open(dir_, "/t/held", 4096, 10,
                                     VerifyStateFile::kCreateOrLoad);
  ASSERT_TRUE(first.ok()) << first.status();
  for (VerifyStateFile::Mode mode :
       {VerifyStateFile::kLoad, VerifyStateFile::kCreateOrLoad}) {
    auto second = VerifyStateFile::Open(dir_, "/t/held", 4096, 10, mode);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(second.status().message().find("/t/held"), std::string::npos)
        << second.status();
    EXPECT_NE(second.status().message().find("held by another run"),
              std::string::npos)
        << second.status();
  }
  (*first)->Unlock();  // the run ended (kept for its results)
  auto after_unlock = VerifyStateFile::Open(dir_, "/t/held", 4096, 10,
                                            VerifyStateFile::kLoad);
  EXPECT_TRUE(after_unlock.ok()) << after_unlock.status();
  after_unlock->reset();
  first->reset();
  auto again = VerifyStateFile::Open(dir_, "/t/held", 4096, 10,
                                     VerifyStateFile::kLoad);
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST_F(VerifyStateTest, LoadRefusesMissingOrOtherBlockSize) {
  auto missing = VerifyStateFile::Open(dir_, "/t/none", 4096, 10,
                                       VerifyStateFile::kLoad);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(VerifyStateFile::Open(dir_, "/t/c", 4096, 10,
                                    VerifyStateFile::kCreateOrLoad)
                  .ok());
  auto other = VerifyStateFile::Open(dir_, "/t/c", 8192, 5,
                                     VerifyStateFile::kLoad);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("block_size 4096"),
            std::string::npos);
  // A writing run starts over, and says so.
  auto fresh = VerifyStateFile::Open(dir_, "/t/c", 8192, 5,
                                     VerifyStateFile::kCreateOrLoad);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE((*fresh)->loaded());
  EXPECT_NE((*fresh)->note().find("new verify state"), std::string::npos);
}

TEST_F(VerifyStateTest, SizeIsBounded) {
  auto s = VerifyStateFile::Open(dir_, "/t/huge", 512,
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
                    VerifyStateFile::FilePath(dir_, "/t/link").c_str()),
            0);
  auto s = VerifyStateFile::Open(dir_, "/t/link", 4096, 10,
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
  auto s = VerifyStateFile::Open(dir_, file, 4096, 64,
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

}  // namespace
}  // namespace blkperf

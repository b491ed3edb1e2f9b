#include "daemon/engine/host/cpu_registry.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// flock locks belong to the open file, so two registrations of one process
// exclude each other as two processes' would.
class CpuRegistryTest : public ::testing::Test {
 protected:
  std::string root_ = absl::StrCat(::testing::TempDir(), "/cpu_registry_",
                                   getpid(), "_", rand());
};

TEST_F(CpuRegistryTest, RunsWithoutCpusTakeFreeCpusThenShareAndSaySo) {
  absl::StatusOr<CpuRegistration> a = RegisterCpus(root_, {0, 1}, {}, 1, false);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->cpus, ElementsAre(0));
  EXPECT_THAT(a->shared, IsEmpty());
  EXPECT_EQ(a->note, "");
  absl::StatusOr<CpuRegistration> b = RegisterCpus(root_, {0, 1}, {}, 1, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->cpus, ElementsAre(1));
  EXPECT_THAT(b->shared, IsEmpty());
  absl::StatusOr<CpuRegistration> c = RegisterCpus(root_, {0, 1}, {}, 1, false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->cpus, ElementsAre(0));
  EXPECT_THAT(c->shared, ElementsAre(0));
  EXPECT_THAT(c->note, HasSubstr(absl::StrCat("CPU 0 (held by pid ", getpid())));
  EXPECT_THAT(c->note, HasSubstr("shares"));
}

TEST_F(CpuRegistryTest, ThreadsSpreadOverFreeCpusOnly) {
  absl::StatusOr<CpuRegistration> a = RegisterCpus(root_, {0, 1, 2}, {}, 1, false);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<CpuRegistration> b = RegisterCpus(root_, {0, 1, 2}, {}, 2, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->cpus, ElementsAre(1, 2));
  EXPECT_THAT(b->shared, IsEmpty());
}

// CI: a test elsewhere held CPU 0, and a two-thread run without cpus got
// {1, 1}, which the spec refuses ("cpus[1] 1 is listed twice"). A thread
// with no free CPU shares another run's, not one of its own run's.
TEST_F(CpuRegistryTest, ThreadsWithoutAFreeCpuShareAnotherRunsNotTheirOwn) {
  absl::StatusOr<CpuRegistration> a = RegisterCpus(root_, {0, 1}, {}, 1, false);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<CpuRegistration> b = RegisterCpus(root_, {0, 1}, {}, 2, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->cpus, ElementsAre(1, 0));
  EXPECT_THAT(b->shared, ElementsAre(0));
  EXPECT_THAT(b->note, HasSubstr("CPU 0 (held by"));
}

TEST_F(CpuRegistryTest, RequestedCpuHeldElsewhereIsSharedOrRefused) {
  absl::StatusOr<CpuRegistration> a = RegisterCpus(root_, {0, 1}, {1}, 1, false);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<CpuRegistration> b = RegisterCpus(root_, {0, 1}, {1}, 1, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->cpus, ElementsAre(1));
  EXPECT_THAT(b->shared, ElementsAre(1));
  absl::StatusOr<CpuRegistration> refused =
      RegisterCpus(root_, {0, 1}, {1}, 1, true);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("cpu_sharing"));
  EXPECT_THAT(refused.status().message(), HasSubstr("CPU 1"));
  // Refusing is only about sharing: a free CPU is taken.
  absl::StatusOr<CpuRegistration> free = RegisterCpus(root_, {0, 1}, {}, 1, true);
  ASSERT_TRUE(free.ok()) << free.status();
  EXPECT_THAT(free->cpus, ElementsAre(0));
}

TEST_F(CpuRegistryTest, EndingARegistrationFreesItsCpus) {
  {
    absl::StatusOr<CpuRegistration> a = RegisterCpus(root_, {0, 1}, {}, 2, false);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_THAT(a->cpus, ElementsAre(0, 1));
  }
  absl::StatusOr<CpuRegistration> b = RegisterCpus(root_, {0, 1}, {}, 1, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->cpus, ElementsAre(0));
  EXPECT_THAT(b->shared, IsEmpty());
}

TEST_F(CpuRegistryTest, UnusableRegistryPlacesAsBeforeAndSaysSo) {
  const std::string file = root_ + "_file";
  std::ofstream(file) << "not a directory";
  absl::StatusOr<CpuRegistration> a = RegisterCpus(file, {0, 1}, {}, 3, false);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->cpus, ElementsAre(0, 1, 0));
  EXPECT_THAT(a->note, HasSubstr("could not be used"));
  EXPECT_THAT(a->locks, IsEmpty());
}

}  // namespace
}  // namespace blkperf

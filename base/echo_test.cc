#include "base/echo.h"

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(EchoTest, ShortTextIsKeptWithControlCharactersEscaped) {
  EXPECT_EQ(Echo("/srv/a b"), "/srv/a b");
  EXPECT_EQ(Echo("x\nFAKE LOG LINE"), "x\\nFAKE LOG LINE");
}

TEST(EchoTest, LongTextIsCutAndSaysHowLongItWas) {
  const std::string huge(1 << 20, 'a');
  const std::string echoed = Echo(huge);
  EXPECT_EQ(echoed, std::string(kMaxEcho, 'a') + "...(1048576 bytes)");
}

}  // namespace
}  // namespace blkperf

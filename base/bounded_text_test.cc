#include "base/bounded_text.h"

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(BoundedTextTest, QuotesShortText) {
  EXPECT_EQ(BoundedText("w1"), "\"w1\"");
}

TEST(BoundedTextTest, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(BoundedText("a\nb\t\"c\\\x01\x7f"),
            "\"a\\nb\\t\\\"c\\\\\\u0001\\u007f\"");
}

TEST(BoundedTextTest, CutsLongTextAndSaysHowMuchWasLeftOut) {
  const std::string huge(100000, 'x');
  const std::string out = BoundedText(huge, 10);
  EXPECT_EQ(out, "\"xxxxxxxxxx\"...(+99990 bytes)");
}

TEST(BoundedTextTest, DefaultBoundKeepsMessagesSmall) {
  EXPECT_LT(BoundedText(std::string(1 << 20, '\n')).size(), 300u);
}

}  // namespace
}  // namespace blkperf

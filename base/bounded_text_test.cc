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

TEST(BoundedTextTest, EscapesC1ControlsAsJson) {
  // U+009B (CSI) encoded in UTF-8; an accented letter (C3 A9) passes.
  EXPECT_EQ(BoundedText("a\xc2\x9b" "31m\xc3\xa9"), "\"a\\u009b31m\xc3\xa9\"");
}

TEST(OneLineTest, ForgedLogLineStaysOnItsLine) {
  const std::string out = OneLine("x\nE1207 13:00:00.0 server.cc:1] FORGED");
  EXPECT_EQ(out, "x\\nE1207 13:00:00.0 server.cc:1] FORGED");
  EXPECT_EQ(out.find('\n'), std::string::npos);
}

TEST(OneLineTest, EscapesTerminalSequencesAndKeepsBackslashes) {
  EXPECT_EQ(OneLine("e\x1b[2J\x1b]0;PWNED\x07\r\t\\\xc2\x9b" "1m"),
            "e\\x1b[2J\\x1b]0;PWNED\\x07\\r\\t\\\\xc2\\x9b1m");
}

TEST(OneLineTest, CutsAndSaysHowMuchWasLeftOut) {
  EXPECT_EQ(OneLine(std::string(20, 'a'), 5), "aaaaa...(+15 bytes)");
  EXPECT_EQ(OneLine(std::string(kMaxPathEchoBytes, 'b')),
            std::string(kMaxPathEchoBytes, 'b'));
}

TEST(TerminalTextTest, KeepsLinesEscapesTheRest) {
  EXPECT_EQ(TerminalText("a\n\tb\x1b[31m\x7f\n"), "a\n\tb\\x1b[31m\\x7f\n");
}

}  // namespace
}  // namespace blkperf

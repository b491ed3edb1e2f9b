// Usage errors on the command line, found before Abseil's parser sees them.
// absl::ParseCommandLine exits 1 by itself on an unknown flag or a value
// that does not parse; a usage error must exit 2 (README, docs/cli.md).
// Checking the flags first keeps that promise with Abseil's own parsers.
//
//   absl::Status s = CheckCommandLineFlags(argc, argv);
//   if (!s.ok()) return Usage(s.message());       // exit 2
//   std::vector<char*> args = absl::ParseCommandLine(argc, argv);
#ifndef BLKPERF_CLI_COMMAND_LINE_H_
#define BLKPERF_CLI_COMMAND_LINE_H_

#include "absl/status/status.h"

namespace blkperf {

// Every --flag[=value] / -flag[=value] / --flag value / --noflag in
// argv[1..argc) up to a "--" names a registered flag and its value parses.
// InvalidArgument naming the flag and the reason otherwise (an unknown flag
// names the registered flags that share its first letters, if any).
// Parsing a value sets the flag, as the parser that follows will.
absl::Status CheckCommandLineFlags(int argc, char** argv);

}  // namespace blkperf

#endif  // BLKPERF_CLI_COMMAND_LINE_H_

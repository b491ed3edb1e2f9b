// blkperfd: the blkperf daemon.
//
//   blkperfd run [flags]     one workload in the foreground, result table
//   blkperfd serve [flags]   the gRPC control plane (see daemon/service)
//   blkperfd --helpfull      every flag
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "daemon/run/run_command.h"
#include "daemon/service/serve.h"

namespace {

constexpr char kUsage[] =
    "blkperfd: io_uring storage performance daemon.\n"
    "  blkperfd run [flags]    run one workload locally and print the result\n"
    "  blkperfd serve [flags]  serve the gRPC control plane (and metrics)\n"
    "  blkperfd --helpfull     list every flag";

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (argc < 2 || argv[1][0] == '-') {
    std::vector<char*> args = absl::ParseCommandLine(argc, argv);
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  const std::string command = argv[1];
  // Drop the subcommand so flag parsing sees only flags.
  std::vector<char*> rest = {argv[0]};
  for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
  std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  if (positional.size() > 1) {
    std::fprintf(stderr, "blkperfd %s: unexpected argument \"%s\"\n",
                 command.c_str(), positional[1]);
    return 2;
  }
  if (command == "run") return blkperf::RunCommand();
  if (command == "serve") return blkperf::RunServe(0, nullptr);
  std::fprintf(stderr, "blkperfd: unknown command \"%s\"\n%s\n",
               command.c_str(), kUsage);
  return 2;
}

// A stand-alone `blkperfd serve` for the end-to-end tests, until they can use
// blkperfd itself: the same flags and behaviour (see serve.h).
#include <vector>

#include "absl/flags/parse.h"
#include "daemon/service/serve.h"

int main(int argc, char** argv) {
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  return blkperf::RunServe(static_cast<int>(args.size()) - 1, args.data() + 1);
}

// `blkperf results`: the results store from the command line
// (docs/results.md). No daemon is needed.
//
//   blkperf results list [--tag=k=v,...] [--filter_host=H]
//       [--filter_kernel=R] [--filter_model=M] [--since=T] [--until=T]
//       [--limit=N] [--json]
//   blkperf results show ID [--json]
//   blkperf results export [filters] --output_format=ndjson|csv
//   blkperf results delete ID
//
// Every one takes --results_db (default as the run commands': store/
// save_result.h). Exit status 0, 1 on a store error, 2 on usage.
#ifndef BLKPERF_CLIENT_RESULTS_COMMAND_H_
#define BLKPERF_CLIENT_RESULTS_COMMAND_H_

#include <string>
#include <vector>

namespace blkperf {

int RunResultsCommand(const std::vector<std::string>& args, bool json);

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_RESULTS_COMMAND_H_

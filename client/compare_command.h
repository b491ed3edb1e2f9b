// `blkperf compare A.json B.json`: two saved reports (`blkperfd run --json`,
// `blkperf run --json`) compared: spec and environment differences, the
// IOPS ratio B / A (with an interval and a verdict against --margin at
// --confidence when both carry per-interval samples), and the warning that
// runs not interleaved cannot separate the change from drift
// (experiment/compare.h). A or B may instead be a results store id
// (`blkperf results list`): the report kept there (--results_db, else the
// default store), when no file of that name exists.
//
//   blkperf compare before.json after.json --margin=0.03
//   blkperf compare r1a2b3c4d5e6f7a8b after.json --results_db=DB.sqlite
#ifndef BLKPERF_CLIENT_COMPARE_COMMAND_H_
#define BLKPERF_CLIENT_COMPARE_COMMAND_H_

#include <string>

namespace blkperf {

// Prints the comparison on stdout; returns the exit code (2 for a file or
// store id that cannot be read or is not a report, or bad flags).
int CompareCommand(const std::string& path_a, const std::string& path_b);

}  // namespace blkperf

#endif  // BLKPERF_CLIENT_COMPARE_COMMAND_H_

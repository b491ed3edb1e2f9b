// The blkperf build: its version (VERSION) and the git commit it was built
// from, stamped by the build (tools/workspace_status.sh, the genrule
// //base:version_stamp). Results carry both (model/environment.h).
//
//   std::string v = BlkperfVersion();   // "0.1.0"
//   std::string c = BlkperfCommit();    // "a33ee0c6...", "...-dirty" for a
//                                       // tree with uncommitted changes
#ifndef BLKPERF_BASE_VERSION_H_
#define BLKPERF_BASE_VERSION_H_

namespace blkperf {

// Never empty: "unknown" only for a build outside a git checkout.
const char* BlkperfVersion();
const char* BlkperfCommit();

}  // namespace blkperf

#endif  // BLKPERF_BASE_VERSION_H_

// fio job files read as fio reads them: sections, options with the file and
// line they came from, `include` lines and ${VAR} expansion. No meaning is
// given to any option here (fio/import.h maps them onto a blkperf spec).
//
//   absl::StatusOr<FioJobFile> file = ReadFioJobFile("job.fio");
//   for (const FioSection& s : file->sections) ...   // [global] included
//
// Rules (fio's HOWTO, "Job file format"): a line is `[name]`, `key=value`,
// `key` alone (a boolean set to 1), `include FILE` (relative to the
// including file's directory), blank, or a comment starting with ';' or
// '#'. ${VAR} is replaced by the environment variable VAR; an unset one is
// an error naming file and line, as are a line before any section, an
// include cycle, nesting deeper than kMaxFioIncludeDepth and a file over
// kMaxFioJobFileBytes.
#ifndef BLKPERF_FIO_JOB_FILE_H_
#define BLKPERF_FIO_JOB_FILE_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

inline constexpr size_t kMaxFioJobFileBytes = 1 << 20;
inline constexpr int kMaxFioIncludeDepth = 8;

struct FioOption {
  std::string key;    // lower case, as fio compares them
  std::string value;  // expanded; "1" for a bare key
  std::string file;   // where it was written
  int line = 0;
  // "file:line: option 'key'", the prefix of every message about it.
  std::string Where() const;
};

struct FioSection {
  std::string name;  // "global" for [global]
  std::string file;
  int line = 0;
  std::vector<FioOption> options;  // in file order
};

struct FioJobFile {
  std::vector<FioSection> sections;  // in file order, includes expanded
};

// How the reader reaches files and the environment (tests replace them).
struct FioReadHooks {
  std::function<absl::StatusOr<std::string>(const std::string& path)> read;
  std::function<std::optional<std::string>(const std::string& name)> getenv;
};
// The process's own files (at most kMaxFioJobFileBytes each) and environment.
FioReadHooks DefaultFioReadHooks();

// Reads `path` and its includes. InvalidArgument naming file and line.
absl::StatusOr<FioJobFile> ReadFioJobFile(const std::string& path,
                                          const FioReadHooks& hooks =
                                              DefaultFioReadHooks());

}  // namespace blkperf

#endif  // BLKPERF_FIO_JOB_FILE_H_

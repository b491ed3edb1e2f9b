#include "store/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

constexpr char kSuffix[] = ".result";

std::vector<std::string> SpoolFiles(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    if (absl::EndsWith(e->d_name, kSuffix)) {
      files.push_back(absl::StrCat(dir, "/", e->d_name));
    }
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

// Writes `bytes` to dir/<id>.result via a temporary file and rename, so a
// reader never sees half a record. Returns the path or an error.
absl::StatusOr<std::string> WriteSpoolFile(const std::string& dir,
                                           const ResultRecord& record) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot create spool ", dir, ": ", strerror(errno)));
  }
  const std::string path = absl::StrCat(dir, "/", record.id, kSuffix);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << EncodeRecord(record);
    out.flush();
    if (!out) {
      unlink(tmp.c_str());
      return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
    }
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return absl::UnavailableError(
        absl::StrCat("cannot rename ", tmp, ": ", strerror(errno)));
  }
  return path;
}

absl::StatusOr<ResultRecord> ReadSpoolFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  absl::StatusOr<ResultRecord> r = DecodeRecord(bytes.str());
  if (!r.ok()) return absl::DataLossError(absl::StrCat(path, ": ", r.status().message()));
  return r;
}

}  // namespace

SaveReport SaveOrSpoolEach(
    const StoreOpener& open, absl::string_view location,
    const std::string& spool_dir,
    const std::function<std::optional<ResultRecord>()>& next) {
  SaveReport report;
  absl::StatusOr<std::unique_ptr<ResultsStore>> store = open(location);
  if (store.ok()) {
    for (const std::string& file : SpoolFiles(spool_dir)) {
      absl::StatusOr<ResultRecord> spooled = ReadSpoolFile(file);
      if (spooled.ok() && (*store)->Save(*spooled).ok()) {
        unlink(file.c_str());
        ++report.spooled_written;
      } else {
        ++report.spooled_left;
      }
    }
  } else {
    report.error = store.status();
  }
  int records = 0, spooled = 0;
  std::string last_id, lost;
  while (std::optional<ResultRecord> record = next()) {
    ++records;
    absl::Status saved = store.ok() ? (*store)->Save(*record) : store.status();
    if (saved.ok()) {
      ++report.saved_count;
      continue;
    }
    report.error = saved;
    absl::StatusOr<std::string> file = WriteSpoolFile(spool_dir, *record);
    if (file.ok()) {
      report.spool_file = *file;
      last_id = record->id;
      ++spooled;
      ++report.spooled_left;
    } else {
      absl::StrAppend(&lost, "results store: not saved (",
                      report.error.message(), ") and not spooled (",
                      file.status().message(), "): result ", record->id,
                      " is only in this report\n");
    }
  }
  report.saved = records > 0 && report.saved_count == records;
  if (report.spooled_written > 0) {
    absl::StrAppend(&report.message, "results store: wrote ",
                    report.spooled_written,
                    " spooled result(s) that waited in ", spool_dir, "\n");
  }
  if (spooled > 0) {
    absl::StrAppend(
        &report.message, "results store: not saved now (",
        report.error.message(), "); ",
        spooled == 1 ? absl::StrCat("result ", last_id, " waits in ",
                                    report.spool_file)
                     : absl::StrCat(spooled, " results wait in ", spool_dir),
        " and ", spooled == 1 ? "is" : "are",
        " written when the store takes results again\n");
  } else if (report.spooled_left > 0) {
    absl::StrAppend(&report.message, "results store: ", report.spooled_left,
                    " spooled result(s) still wait in ", spool_dir, "\n");
  }
  absl::StrAppend(&report.message, lost);
  return report;
}

SaveReport SaveOrSpool(const StoreOpener& open, absl::string_view location,
                       const std::string& spool_dir,
                       const ResultRecord& record) {
  bool given = false;
  return SaveOrSpoolEach(open, location, spool_dir,
                         [&]() -> std::optional<ResultRecord> {
                           if (given) return std::nullopt;
                           given = true;
                           return record;
                         });
}

}  // namespace blkperf

#include "store/result_record.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/bounded_text.h"

namespace blkperf {
namespace {

constexpr char kMagic[] = "blkperf-result-v1\n";
constexpr size_t kMaxTagKey = 64;
constexpr size_t kMaxTagValue = 256;
constexpr size_t kMaxTags = 32;

bool ValidKey(absl::string_view key) {
  if (key.empty() || key.size() > kMaxTagKey) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

bool ValidValue(absl::string_view value) {
  if (value.size() > kMaxTagValue) return false;
  return std::all_of(value.begin(), value.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != ',';
  });
}

void Put(absl::string_view field, std::string* out) {
  absl::StrAppend(out, field.size(), ":", field);
}

// Reads one Put() field from the front of `in`.
bool Take(absl::string_view* in, std::string* field) {
  const size_t colon = in->find(':');
  size_t size = 0;
  if (colon == absl::string_view::npos ||
      !absl::SimpleAtoi(in->substr(0, colon), &size) ||
      size > in->size() - colon - 1) {
    return false;
  }
  *field = std::string(in->substr(colon + 1, size));
  in->remove_prefix(colon + 1 + size);
  return true;
}

}  // namespace

std::string NewResultId() {
  std::random_device rd;
  const uint64_t hi = rd(), lo = rd();
  return absl::StrFormat("r%016x", (hi << 32) ^ lo);
}

std::string StableResultId(absl::string_view key) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : key) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return absl::StrFormat("r%016x", hash);
}

absl::StatusOr<Tags> ParseTags(absl::string_view text, absl::string_view field) {
  Tags tags;
  if (text.empty()) return tags;
  for (absl::string_view entry : absl::StrSplit(text, ',')) {
    const size_t eq = entry.find('=');
    const absl::string_view key =
        eq == absl::string_view::npos ? entry : entry.substr(0, eq);
    if (eq == absl::string_view::npos || !ValidKey(key) ||
        !ValidValue(entry.substr(eq + 1))) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, " entry ", BoundedText(entry),
          " is not key=value (key: 1-64 of A-Z a-z 0-9 _ . -; value: at most "
          "256 printable characters, no ',')"));
    }
    for (const auto& [k, v] : tags) {
      if (k == key) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, " key ", BoundedText(key), " is given twice"));
      }
    }
    tags.emplace_back(std::string(key), std::string(entry.substr(eq + 1)));
  }
  if (tags.size() > kMaxTags) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " has ", tags.size(), " tags; at most ", kMaxTags));
  }
  std::sort(tags.begin(), tags.end());
  return tags;
}

std::string EncodeRecord(const ResultRecord& r) {
  std::string out = kMagic;
  for (const std::string* f :
       {&r.id, &r.run_id, &r.source, &r.hostname, &r.kernel_release,
        &r.target_model, &r.state, &r.spec_summary, &r.spec_hash,
        &r.report_json, &r.spec_proto, &r.snapshot_proto}) {
    Put(*f, &out);
  }
  Put(absl::StrCat(r.created_unix_ns), &out);
  Put(absl::StrFormat("%.17g", r.iops), &out);
  Put(absl::StrFormat("%.17g", r.bytes_per_second), &out);
  Put(absl::StrCat(r.p99_ns), &out);
  Put(absl::StrCat(r.tags.size()), &out);
  for (const auto& [k, v] : r.tags) {
    Put(k, &out);
    Put(v, &out);
  }
  return out;
}

absl::StatusOr<ResultRecord> DecodeRecord(absl::string_view in) {
  auto bad = [](absl::string_view what) {
    return absl::DataLossError(absl::StrCat("spooled result: ", what));
  };
  if (!absl::ConsumePrefix(&in, kMagic)) return bad("no blkperf-result-v1 header");
  ResultRecord r;
  for (std::string* f :
       {&r.id, &r.run_id, &r.source, &r.hostname, &r.kernel_release,
        &r.target_model, &r.state, &r.spec_summary, &r.spec_hash,
        &r.report_json, &r.spec_proto, &r.snapshot_proto}) {
    if (!Take(&in, f)) return bad("truncated field");
  }
  std::string created, iops, bw, p99, tag_count;
  if (!Take(&in, &created) || !Take(&in, &iops) || !Take(&in, &bw) ||
      !Take(&in, &p99) || !Take(&in, &tag_count)) {
    return bad("truncated numbers");
  }
  size_t tags = 0;
  if (!absl::SimpleAtoi(created, &r.created_unix_ns) ||
      !absl::SimpleAtod(iops, &r.iops) ||
      !absl::SimpleAtod(bw, &r.bytes_per_second) ||
      !absl::SimpleAtoi(p99, &r.p99_ns) || !absl::SimpleAtoi(tag_count, &tags) ||
      tags > kMaxTags) {
    return bad("bad number");
  }
  for (size_t i = 0; i < tags; ++i) {
    std::string k, v;
    if (!Take(&in, &k) || !Take(&in, &v)) return bad("truncated tag");
    r.tags.emplace_back(std::move(k), std::move(v));
  }
  if (!in.empty()) return bad("trailing bytes");
  if (r.id.empty()) return bad("no id");
  return r;
}

}  // namespace blkperf

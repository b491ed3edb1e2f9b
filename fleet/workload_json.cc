#include "fleet/workload_json.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/timestamp.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "wire/message_json.h"

namespace blkperf::fleet {
namespace {

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";
// The wire type of an embedded message.
constexpr uint32_t kLengthDelimited = 2;

// The generated pool's types, resolved for the JSON printer (thread-safe).
google::protobuf::util::TypeResolver* Resolver() {
  static google::protobuf::util::TypeResolver* const resolver =
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool());
  return resolver;
}

// The elements of the JSON array whose '[' is at json[open], each as
// written (protobuf writes one line: no whitespace between tokens).
std::vector<std::string> ArrayElements(const std::string& json, size_t open) {
  std::vector<std::string> elements;
  int depth = 0;
  bool in_string = false, escaped = false;
  size_t start = 0;
  for (size_t i = open + 1; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth++ == 0) start = i;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // the array's own ']'
      if (--depth == 0) elements.push_back(json.substr(start, i + 1 - start));
    }
  }
  return elements;
}

// The workloads as ListWorkloadsResponse.workloads printed at once; empty
// if that did not give one element per workload.
std::vector<std::string> ViaList(
    const std::vector<const v1::Workload*>& workloads) {
  const google::protobuf::Descriptor* list =
      v1::ListWorkloadsResponse::descriptor();
  const google::protobuf::FieldDescriptor* field =
      list->FindFieldByName("workloads");
  // The list's wire form is its elements, each a length-delimited field.
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream out(&stream);
    for (const v1::Workload* w : workloads) {
      const std::string bytes = w->SerializeAsString();
      out.WriteTag(static_cast<uint32_t>(field->number()) << 3 |
                   kLengthDelimited);
      out.WriteVarint32(static_cast<uint32_t>(bytes.size()));
      out.WriteString(bytes);
    }
  }
  std::string json;
  const auto status = google::protobuf::util::BinaryToJsonString(
      Resolver(), std::string(kTypeUrlPrefix) + "/" + list->full_name(),
      binary, &json, MessageJsonOptions(JsonLayout::kOneLine));
  if (!status.ok()) return {};
  const std::string key = "\"" + field->name() + "\":[";
  const size_t at = json.find(key);
  if (at == std::string::npos) return {};
  std::vector<std::string> elements =
      ArrayElements(json, at + key.size() - 1);
  if (elements.size() != workloads.size()) return {};
  return elements;
}

// A direct printer by reflection of the subset of the protobuf JSON
// mapping (3.21, MessageJsonOptions: proto field names, primitives at
// their defaults printed) that the API's workloads use, in protobuf's
// order (Message below): unset message fields and unset members of
// oneofs (proto3 optional fields included) left out; repeated fields as
// lists, [] when empty; empty maps as {}; 64-bit integers quoted; doubles
// as protobuf's SimpleDtoa; enums by name; Duration and Timestamp as
// their strings. Anything else (map entries, bytes, floats, a non-finite
// double, an enum value without a name, a string with a byte that
// protobuf would escape as \uXXXX or that is not printable ASCII, a
// Duration or Timestamp out of range) returns false, and the caller
// prints that workload with protobuf's printer. workload_json_test
// compares the two on randomly filled workloads.
class FastJson {
 public:
  explicit FastJson(std::string& out) : out_(out) {}

  bool Message(const google::protobuf::Message& m) {
    const google::protobuf::Descriptor* d = m.GetDescriptor();
    if (d->full_name() == "google.protobuf.Duration") return Duration(m);
    if (d->full_name() == "google.protobuf.Timestamp") return Timestamp(m);
    if (d->well_known_type() !=
        google::protobuf::Descriptor::WELLKNOWNTYPE_UNSPECIFIED) {
      return false;
    }
    const google::protobuf::Reflection* r = m.GetReflection();
    out_ += '{';
    bool first = true;
    // protobuf's printer lays out each message's fields in declaration
    // order with their defaults, then appends what it finds no place for
    // in the order it reads them (field numbers): set members of oneofs
    // (proto3 optional fields among them) and set Durations and
    // Timestamps (printed as strings, not the messages laid out).
    std::vector<const google::protobuf::FieldDescriptor*> appended;
    for (int i = 0; i < d->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* f = d->field(i);
      if (f->is_map()) {
        // An empty map prints as {} in its place; entries are left to
        // protobuf (whose order of them is the wire's).
        if (r->FieldSize(m, f) != 0) return false;
        absl::StrAppend(&out_, first ? "" : ",", "\"", f->name(), "\":{}");
        first = false;
        continue;
      }
      if (f->is_repeated()) {
        if (!Field(m, r, f, first)) return false;
        continue;
      }
      const bool message =
          f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE;
      if ((message || f->containing_oneof() != nullptr) && !r->HasField(m, f)) {
        continue;
      }
      if (message ? IsTime(f->message_type())
                  : f->containing_oneof() != nullptr) {
        appended.push_back(f);
        continue;
      }
      if (!Field(m, r, f, first)) return false;
    }
    std::sort(appended.begin(), appended.end(),
              [](const google::protobuf::FieldDescriptor* a,
                 const google::protobuf::FieldDescriptor* b) {
                return a->number() < b->number();
              });
    for (const google::protobuf::FieldDescriptor* f : appended) {
      if (!Field(m, r, f, first)) return false;
    }
    out_ += '}';
    return true;
  }

 private:
  static bool IsTime(const google::protobuf::Descriptor* d) {
    return d->full_name() == "google.protobuf.Duration" ||
           d->full_name() == "google.protobuf.Timestamp";
  }

  // "name":value, a comma before it unless `first`.
  bool Field(const google::protobuf::Message& m,
             const google::protobuf::Reflection* r,
             const google::protobuf::FieldDescriptor* f, bool& first) {
    if (!first) out_ += ',';
    first = false;
    out_ += '"';
    out_ += f->name();
    out_ += "\":";
    if (!f->is_repeated()) return Value(m, r, f, -1);
    out_ += '[';
    const int n = r->FieldSize(m, f);
    for (int k = 0; k < n; ++k) {
      if (k > 0) out_ += ',';
      if (!Value(m, r, f, k)) return false;
    }
    out_ += ']';
    return true;
  }

  // Field f of m (element `index` of a repeated one; -1: singular).
  bool Value(const google::protobuf::Message& m,
             const google::protobuf::Reflection* r,
             const google::protobuf::FieldDescriptor* f, int index) {
    using F = google::protobuf::FieldDescriptor;
    const bool rep = index >= 0;
    switch (f->cpp_type()) {
      case F::CPPTYPE_INT32:
        absl::StrAppend(
            &out_, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
        return true;
      case F::CPPTYPE_UINT32:
        absl::StrAppend(&out_, rep ? r->GetRepeatedUInt32(m, f, index)
                                   : r->GetUInt32(m, f));
        return true;
      case F::CPPTYPE_INT64:
        absl::StrAppend(
            &out_, "\"",
            rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f), "\"");
        return true;
      case F::CPPTYPE_UINT64:
        absl::StrAppend(
            &out_, "\"",
            rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f), "\"");
        return true;
      case F::CPPTYPE_BOOL:
        out_ += (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f))
                    ? "true"
                    : "false";
        return true;
      case F::CPPTYPE_DOUBLE:
        return Double(rep ? r->GetRepeatedDouble(m, f, index)
                          : r->GetDouble(m, f));
      case F::CPPTYPE_ENUM: {
        const int number =
            rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
        const google::protobuf::EnumValueDescriptor* v =
            f->enum_type()->FindValueByNumber(number);
        if (v == nullptr) return false;
        return String(v->name());
      }
      case F::CPPTYPE_STRING: {
        if (f->type() == F::TYPE_BYTES) return false;
        std::string scratch;
        const std::string& text =
            rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                : r->GetStringReference(m, f, &scratch);
        return String(text);
      }
      case F::CPPTYPE_MESSAGE:
        return Message(rep ? r->GetRepeatedMessage(m, f, index)
                           : r->GetMessage(m, f));
      default:  // float
        return false;
    }
  }

  // As protobuf's SimpleDtoa: 15 significant digits, 17 when 15 do not
  // read back as the same double.
  bool Double(double v) {
    if (!std::isfinite(v)) return false;
    char buffer[40];
    snprintf(buffer, sizeof(buffer), "%.15g", v);
    if (strtod(buffer, nullptr) != v) {
      snprintf(buffer, sizeof(buffer), "%.17g", v);
    }
    out_ += buffer;
    return true;
  }

  // Printable ASCII only; '"' and '\\' escaped as protobuf escapes them.
  bool String(const std::string& s) {
    out_ += '"';
    for (const char c : s) {
      if (c < 0x20 || c > 0x7e || c == '<' || c == '>') return false;
      if (c == '"' || c == '\\') out_ += '\\';
      out_ += c;
    }
    out_ += '"';
    return true;
  }

  // The fraction of a Duration or Timestamp: 0, 3, 6 or 9 digits.
  void Nanos(int32_t nanos) {
    if (nanos == 0) return;
    if (nanos % 1000000 == 0) {
      absl::StrAppend(&out_, ".", absl::StrFormat("%03d", nanos / 1000000));
    } else if (nanos % 1000 == 0) {
      absl::StrAppend(&out_, ".", absl::StrFormat("%06d", nanos / 1000));
    } else {
      absl::StrAppend(&out_, ".", absl::StrFormat("%09d", nanos));
    }
  }

  bool Duration(const google::protobuf::Message& m) {
    google::protobuf::Duration d;
    d.CopyFrom(m);
    constexpr int64_t kMaxSeconds = 315576000000;
    if (d.seconds() < -kMaxSeconds || d.seconds() > kMaxSeconds ||
        d.nanos() <= -1000000000 || d.nanos() >= 1000000000 ||
        (d.seconds() < 0 && d.nanos() > 0) ||
        (d.seconds() > 0 && d.nanos() < 0)) {
      return false;
    }
    out_ += '"';
    if (d.seconds() < 0 || d.nanos() < 0) out_ += '-';
    absl::StrAppend(&out_, d.seconds() < 0 ? -d.seconds() : d.seconds());
    Nanos(d.nanos() < 0 ? -d.nanos() : d.nanos());
    out_ += "s\"";
    return true;
  }

  bool Timestamp(const google::protobuf::Message& m) {
    google::protobuf::Timestamp t;
    t.CopyFrom(m);
    // 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z
    if (t.seconds() < -62135596800 || t.seconds() > 253402300799 ||
        t.nanos() < 0 || t.nanos() >= 1000000000) {
      return false;
    }
    out_ += '"';
    out_ += absl::FormatTime("%Y-%m-%dT%H:%M:%S",
                             absl::FromUnixSeconds(t.seconds()),
                             absl::UTCTimeZone());
    Nanos(t.nanos());
    out_ += "Z\"";
    return true;
  }

  std::string& out_;
};

}  // namespace

bool DirectApiJson(const google::protobuf::Message& message, std::string& out) {
  out.clear();
  if (FastJson(out).Message(message)) return true;
  out.clear();
  return false;
}

std::vector<std::string> WorkloadsApiJson(
    const std::vector<const v1::Workload*>& workloads) {
  std::vector<std::string> json(workloads.size());
  // Those the direct printer leaves to protobuf's, converted at once.
  std::vector<const v1::Workload*> rest;
  std::vector<size_t> rest_at;
  for (size_t i = 0; i < workloads.size(); ++i) {
    if (DirectApiJson(*workloads[i], json[i])) continue;
    rest.push_back(workloads[i]);
    rest_at.push_back(i);
  }
  if (rest.empty()) return json;
  std::vector<std::string> printed = ViaList(rest);
  // Not expected (the list prints as the protobuf JSON mapping says): one
  // conversion per workload gives the same text, slower.
  if (printed.empty()) {
    for (const v1::Workload* w : rest) {
      printed.push_back(MessageJson(*w, JsonLayout::kOneLine));
    }
  }
  for (size_t k = 0; k < rest.size(); ++k) {
    json[rest_at[k]] = std::move(printed[k]);
  }
  return json;
}

}  // namespace blkperf::fleet

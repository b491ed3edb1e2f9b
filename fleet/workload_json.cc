#include "fleet/workload_json.h"

#include <cstdint>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
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

}  // namespace

std::vector<std::string> WorkloadsApiJson(
    const std::vector<const v1::Workload*>& workloads) {
  if (workloads.empty()) return {};
  std::vector<std::string> json = ViaList(workloads);
  if (!json.empty()) return json;
  // Not expected (the list prints as the protobuf JSON mapping says): one
  // conversion per workload gives the same text, slower.
  for (const v1::Workload* w : workloads) {
    json.push_back(MessageJson(*w, JsonLayout::kOneLine));
  }
  return json;
}

}  // namespace blkperf::fleet

#include "wire/message_json.h"

#include "google/protobuf/util/json_util.h"

namespace blkperf {

google::protobuf::util::JsonPrintOptions MessageJsonOptions(JsonLayout layout) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = layout == JsonLayout::kIndented;
  return options;
}

std::string MessageJson(const google::protobuf::Message& message,
                        JsonLayout layout) {
  std::string json;
  // Cannot fail for a message of this build's own descriptors.
  (void)google::protobuf::util::MessageToJsonString(message, &json,
                                                    MessageJsonOptions(layout));
  if (layout == JsonLayout::kIndented && !json.empty() && json.back() != '\n') {
    json += '\n';
  }
  return json;
}

}  // namespace blkperf

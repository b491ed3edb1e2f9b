// The API's messages as JSON: the protobuf JSON mapping with proto field
// names and every primitive field printed (defaults included), the one
// printer behind the client's --api_json and the fleet report's.
//
//   std::cout << MessageJson(response, JsonLayout::kIndented);
//   std::cout << MessageJson(watch_response, JsonLayout::kOneLine) << "\n";
#ifndef BLKPERF_WIRE_MESSAGE_JSON_H_
#define BLKPERF_WIRE_MESSAGE_JSON_H_

#include <string>

#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"

namespace blkperf {

enum class JsonLayout { kOneLine, kIndented };

// No trailing newline on one line; the indented form ends with one.
std::string MessageJson(const google::protobuf::Message& message,
                        JsonLayout layout);

// The options MessageJson prints with (for printers of many messages at
// once that must print each exactly as MessageJson would).
google::protobuf::util::JsonPrintOptions MessageJsonOptions(JsonLayout layout);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_MESSAGE_JSON_H_

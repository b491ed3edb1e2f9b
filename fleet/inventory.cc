#include "fleet/inventory.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <yaml.h>

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/bounded_text.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace blkperf::fleet {
namespace {

// Largest inventory file read (a 100k-host file_sd is far below this).
constexpr size_t kMaxFileBytes = 64 << 20;


// One file_sd group as read from JSON or YAML.
struct SdGroup {
  std::vector<std::string> targets;
  std::map<std::string, std::string> labels;
};

absl::StatusOr<int> ParsePort(absl::string_view port, const std::string& where,
                              absl::string_view whole) {
  int value = 0;
  if (!absl::SimpleAtoi(port, &value) || value < 1 || value > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", BoundedText(whole),
                     " has no valid port (1..65535) after the last ':'"));
  }
  return value;
}

// Splits host:port; the host keeps its brackets.
absl::StatusOr<std::pair<std::string, int>> SplitAddress(
    absl::string_view address, const std::string& where) {
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": ", BoundedText(address), " is not host:port"));
  }
  absl::string_view host = address.substr(0, colon);
  const bool bracketed = absl::StartsWith(host, "[");
  if (bracketed != absl::EndsWith(host, "]") ||
      (!bracketed && absl::StrContains(host, ':'))) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": ", BoundedText(address),
        " is not host:port (write IPv6 addresses as [addr]:port)"));
  }
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != '_' &&
        c != ':' && c != '[' && c != ']' && c != '%') {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", BoundedText(address),
          " has a character not allowed in a host"));
    }
  }
  absl::StatusOr<int> port = ParsePort(address.substr(colon + 1), where, address);
  if (!port.ok()) return port.status();
  return std::make_pair(std::string(host), *port);
}

// Adds `host`, refusing a duplicate address.
absl::Status Add(Host host, const std::string& where, Inventory& inventory,
                 std::set<std::string>& seen) {
  if (absl::Status s = CheckAddress(host.address, where); !s.ok()) return s;
  if (!seen.insert(host.address).second) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": duplicate host ", BoundedText(host.address),
        " (each host may appear once)"));
  }
  inventory.hosts.push_back(std::move(host));
  return absl::OkStatus();
}

absl::Status NonEmpty(const Inventory& inventory, const std::string& name) {
  if (!inventory.hosts.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("hosts: ", name, " names no host"));
}

absl::StatusOr<Inventory> FromGroups(const std::vector<SdGroup>& groups,
                                     const std::string& name) {
  Inventory inventory;
  std::set<std::string> seen;
  for (size_t g = 0; g < groups.size(); ++g) {
    const SdGroup& group = groups[g];
    const std::string where_group = absl::StrCat(name, ": group ", g);
    int grpc_port = kDefaultGrpcPort;
    if (auto it = group.labels.find(kGrpcPortLabel); it != group.labels.end()) {
      absl::StatusOr<int> port = ParsePort(
          it->second, absl::StrCat(where_group, " label ", kGrpcPortLabel),
          it->second);
      if (!port.ok()) return port.status();
      grpc_port = *port;
    }
    for (size_t t = 0; t < group.targets.size(); ++t) {
      const std::string where =
          absl::StrCat(where_group, " target ", t);
      absl::StatusOr<std::pair<std::string, int>> split =
          SplitAddress(group.targets[t], where);
      if (!split.ok()) return split.status();
      Host host;
      host.address = absl::StrCat(split->first, ":", grpc_port);
      host.metrics_address = group.targets[t];
      host.labels = group.labels;
      if (absl::Status s = Add(std::move(host), where, inventory, seen);
          !s.ok()) {
        return s;
      }
    }
  }
  if (absl::Status s = NonEmpty(inventory, name); !s.ok()) return s;
  inventory.source = absl::StrCat(inventory.hosts.size(),
                                  " hosts from file_sd ", name);
  return inventory;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("hosts: cannot read ", BoundedText(path)));
  }
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hosts: ", BoundedText(path), " is larger than ", kMaxFileBytes,
          " bytes"));
    }
  }
  return text;
}

absl::StatusOr<Inventory> ResolveDns(absl::string_view target) {
  const std::string where = absl::StrCat("dns:///", target);
  absl::StatusOr<std::pair<std::string, int>> split =
      SplitAddress(target, "hosts " + where);
  if (!split.ok()) return split.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const std::string name(absl::StripSuffix(
      absl::StripPrefix(split->first, "["), "]"));
  const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &result);
  if (rc != 0) {
    return absl::UnavailableError(absl::StrCat(
        "hosts: cannot resolve ", BoundedText(where), ": ", gai_strerror(rc)));
  }
  Inventory inventory;
  std::set<std::string> seen;
  for (addrinfo* a = result; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    std::string address;
    if (a->ai_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr,
                text, sizeof(text));
      address = absl::StrCat(text, ":", split->second);
    } else if (a->ai_family == AF_INET6) {
      inet_ntop(AF_INET6,
                &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr, text,
                sizeof(text));
      address = absl::StrCat("[", text, "]:", split->second);
    } else {
      continue;
    }
    // getaddrinfo may list one address more than once; DNS records are a
    // set, so a repeat here is not a user's duplicate.
    if (!seen.insert(address).second) continue;
    inventory.hosts.push_back(Host{address, "", {}});
  }
  freeaddrinfo(result);
  if (absl::Status s = NonEmpty(inventory, where); !s.ok()) return s;
  inventory.source =
      absl::StrCat(inventory.hosts.size(), " hosts from ", where);
  inventory.tls_server_name = name;
  return inventory;
}

}  // namespace

absl::Status CheckAddress(const std::string& address,
                          const std::string& where) {
  return SplitAddress(address, where).status();
}

absl::StatusOr<Inventory> ParseHostList(const std::string& list) {
  Inventory inventory;
  std::set<std::string> seen;
  int index = 1;  // counted from 1, as FILE:LINE is
  for (absl::string_view entry : absl::StrSplit(list, ',')) {
    const std::string where = absl::StrCat("hosts entry ", index++);
    entry = absl::StripAsciiWhitespace(entry);
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " is empty (stray comma?)"));
    }
    if (absl::Status s = Add(Host{std::string(entry), "", {}}, where,
                             inventory, seen);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = NonEmpty(inventory, "the list"); !s.ok()) return s;
  inventory.source = absl::StrCat(inventory.hosts.size(), " hosts from --hosts");
  return inventory;
}

absl::StatusOr<Inventory> ParseHostFile(const std::string& text,
                                        const std::string& name) {
  Inventory inventory;
  std::set<std::string> seen;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (absl::Status s = Add(Host{std::string(line), "", {}},
                             absl::StrCat(name, ":", line_number), inventory,
                             seen);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = NonEmpty(inventory, name); !s.ok()) return s;
  inventory.source =
      absl::StrCat(inventory.hosts.size(), " hosts from ", name);
  return inventory;
}

absl::StatusOr<Inventory> ParseFileSdJson(const std::string& text,
                                          const std::string& name) {
  google::protobuf::Value root;
  const auto parsed = google::protobuf::util::JsonStringToMessage(text, &root);
  if (!parsed.ok() || root.kind_case() != google::protobuf::Value::kListValue) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a file_sd JSON list of {\"targets\": [...], \"labels\": "
              "{...}} groups"));
  }
  std::vector<SdGroup> groups;
  for (int g = 0; g < root.list_value().values_size(); ++g) {
    const google::protobuf::Value& v = root.list_value().values(g);
    const std::string where = absl::StrCat(name, ": group ", g);
    if (v.kind_case() != google::protobuf::Value::kStructValue) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is not an object"));
    }
    SdGroup group;
    for (const auto& [key, field] : v.struct_value().fields()) {
      if (key == "targets" &&
          field.kind_case() == google::protobuf::Value::kListValue) {
        for (const google::protobuf::Value& t : field.list_value().values()) {
          if (t.kind_case() != google::protobuf::Value::kStringValue) {
            return absl::InvalidArgumentError(
                absl::StrCat(where, ": targets holds a non-string"));
          }
          group.targets.push_back(t.string_value());
        }
      } else if (key == "labels" &&
                 field.kind_case() == google::protobuf::Value::kStructValue) {
        for (const auto& [lk, lv] : field.struct_value().fields()) {
          if (lv.kind_case() != google::protobuf::Value::kStringValue) {
            return absl::InvalidArgumentError(absl::StrCat(
                where, ": label ", BoundedText(lk), " is not a string"));
          }
          group.labels[lk] = lv.string_value();
        }
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": unexpected field ", BoundedText(key),
            " (file_sd groups have a \"targets\" list and a \"labels\" "
            "object)"));
      }
    }
    groups.push_back(std::move(group));
  }
  return FromGroups(groups, name);
}

namespace {

// file_sd YAML through libyaml's document API.
class YamlDocument {
 public:
  YamlDocument() = default;
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;
  ~YamlDocument() {
    if (loaded_) yaml_document_delete(&document_);
  }

  absl::Status Load(const std::string& text, const std::string& name) {
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(
        &parser, reinterpret_cast<const unsigned char*>(text.data()),
        text.size());
    const bool ok = yaml_parser_load(&parser, &document_) != 0;
    std::string problem = parser.problem != nullptr ? parser.problem : "";
    const size_t line = parser.problem_mark.line + 1;
    yaml_parser_delete(&parser);
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ":", line, ": YAML does not parse: ", problem));
    }
    loaded_ = true;
    return absl::OkStatus();
  }

  yaml_node_t* Root() { return yaml_document_get_root_node(&document_); }
  yaml_node_t* Node(int index) {
    return yaml_document_get_node(&document_, index);
  }
  static std::string Scalar(const yaml_node_t* n) {
    return std::string(reinterpret_cast<const char*>(n->data.scalar.value),
                       n->data.scalar.length);
  }

 private:
  yaml_document_t document_;
  bool loaded_ = false;
};

absl::StatusOr<SdGroup> YamlGroup(YamlDocument& doc, yaml_node_t* node,
                                  const std::string& where) {
  if (node == nullptr || node->type != YAML_MAPPING_NODE) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is not a mapping"));
  }
  SdGroup group;
  for (yaml_node_pair_t* p = node->data.mapping.pairs.start;
       p < node->data.mapping.pairs.top; ++p) {
    yaml_node_t* key = doc.Node(p->key);
    yaml_node_t* value = doc.Node(p->value);
    const std::string k =
        key->type == YAML_SCALAR_NODE ? YamlDocument::Scalar(key) : "";
    if (k == "targets" && value->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t* i = value->data.sequence.items.start;
           i < value->data.sequence.items.top; ++i) {
        yaml_node_t* t = doc.Node(*i);
        if (t->type != YAML_SCALAR_NODE) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, " (line ", t->start_mark.line + 1,
              "): targets holds a non-string"));
        }
        group.targets.push_back(YamlDocument::Scalar(t));
      }
    } else if (k == "labels" && value->type == YAML_MAPPING_NODE) {
      for (yaml_node_pair_t* l = value->data.mapping.pairs.start;
           l < value->data.mapping.pairs.top; ++l) {
        yaml_node_t* lk = doc.Node(l->key);
        yaml_node_t* lv = doc.Node(l->value);
        if (lk->type != YAML_SCALAR_NODE || lv->type != YAML_SCALAR_NODE) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, " (line ", lk->start_mark.line + 1,
              "): labels must map strings to strings"));
        }
        group.labels[YamlDocument::Scalar(lk)] = YamlDocument::Scalar(lv);
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " (line ", key->start_mark.line + 1, "): unexpected field ",
          BoundedText(k),
          " (file_sd groups have a targets list and a labels map)"));
    }
  }
  return group;
}

}  // namespace

absl::StatusOr<Inventory> ParseFileSdYaml(const std::string& text,
                                          const std::string& name) {
  YamlDocument doc;
  if (absl::Status s = doc.Load(text, name); !s.ok()) return s;
  yaml_node_t* root = doc.Root();
  if (root == nullptr || root->type != YAML_SEQUENCE_NODE) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a file_sd YAML list of {targets, labels} groups"));
  }
  std::vector<SdGroup> groups;
  int g = 0;
  for (yaml_node_item_t* i = root->data.sequence.items.start;
       i < root->data.sequence.items.top; ++i, ++g) {
    absl::StatusOr<SdGroup> group =
        YamlGroup(doc, doc.Node(*i), absl::StrCat(name, ": group ", g));
    if (!group.ok()) return group.status();
    groups.push_back(*std::move(group));
  }
  return FromGroups(groups, name);
}

absl::StatusOr<Inventory> LoadInventory(const std::string& hosts) {
  if (absl::StartsWith(hosts, "dns:///")) {
    return ResolveDns(absl::string_view(hosts).substr(7));
  }
  const bool at = absl::StartsWith(hosts, "@");
  const bool json = absl::EndsWith(hosts, ".json");
  const bool yaml =
      absl::EndsWith(hosts, ".yaml") || absl::EndsWith(hosts, ".yml");
  if (!at && !json && !yaml) return ParseHostList(hosts);
  const std::string path = at ? hosts.substr(1) : hosts;
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  if (absl::EndsWith(path, ".json")) return ParseFileSdJson(*text, path);
  if (absl::EndsWith(path, ".yaml") || absl::EndsWith(path, ".yml")) {
    return ParseFileSdYaml(*text, path);
  }
  return ParseHostFile(*text, path);
}

std::string FormatFileSd(const Inventory& inventory, int metrics_port) {
  // Written by hand, not through protobuf's Struct (a map printed in no set
  // order): "targets" then "labels" with their keys sorted, so the same
  // inventory always gives the same bytes and a regenerated file diffs
  // clean.
  auto quote = [](const std::string& text) {
    google::protobuf::Value v;
    v.set_string_value(text);
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(v, &json);
    return json;
  };
  std::string out = "[";
  for (size_t i = 0; i < inventory.hosts.size(); ++i) {
    const Host& host = inventory.hosts[i];
    const size_t colon = host.address.rfind(':');
    std::map<std::string, std::string> labels = host.labels;
    labels[kGrpcPortLabel] = host.address.substr(colon + 1);
    std::vector<std::string> fields;
    for (const auto& [k, v] : labels) {
      fields.push_back(absl::StrCat("      ", quote(k), ": ", quote(v)));
    }
    absl::StrAppend(
        &out, i == 0 ? "\n" : ",\n", "  {\n    \"targets\": [",
        quote(host.metrics_address.empty()
                  ? absl::StrCat(host.address.substr(0, colon), ":",
                                 metrics_port)
                  : host.metrics_address),
        "],\n    \"labels\": {\n", absl::StrJoin(fields, ",\n"),
        "\n    }\n  }");
  }
  absl::StrAppend(&out, inventory.hosts.empty() ? "]" : "\n]");
  return out;
}

}  // namespace blkperf::fleet

// The fleet inventory: which blkperfd control addresses one fleet run drives.
// One list serves control and metrics: the Prometheus file_sd file that
// Prometheus scrapes can be given to `blkperf fleet run --hosts=` as is.
//
//   absl::StatusOr<Inventory> inv = LoadInventory("@hosts.txt");
//   for (const Host& h : inv->hosts) Connect(h.address);
//
// Accepted forms of the --hosts value:
//   a,b,c               comma list of host:port
//   @FILE               one host:port a line; '#' starts a comment
//   FILE.json / .yaml   Prometheus file_sd: a list of {targets, labels}; each
//   FILE.yml            target is a metrics address host:mport, and the
//                       control address is host:<labels.blkperf_grpc>
//                       (default port 7777 when the label is missing);
//                       labels.blkperf_targets, if there, gives the hosts
//                       of that group their own target paths
//   dns:///name:port    every A/AAAA record of name (system resolver); TLS
//                       checks each host's certificate against name
#ifndef BLKPERF_FLEET_INVENTORY_H_
#define BLKPERF_FLEET_INVENTORY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace blkperf::fleet {

// The file_sd label naming the gRPC control port of a target.
inline constexpr char kGrpcPortLabel[] = "blkperf_grpc";
// The file_sd label giving a host's own target paths: comma-separated, one
// per spec target, in order; they replace the spec's paths on that host, or
// are its targets when the spec names none (FleetOptions::target_paths).
inline constexpr char kTargetsLabel[] = "blkperf_targets";
// Control port assumed when a file_sd group lacks the label.
inline constexpr int kDefaultGrpcPort = 7777;
// Metrics port written by `fleet inventory --format=file_sd` by default.
inline constexpr int kDefaultMetricsPort = 9477;

struct Host {
  // Control address, host:port ([v6]:port for IPv6 literals).
  std::string address;
  // Metrics address when the inventory came from file_sd (else empty).
  std::string metrics_address;
  // file_sd labels of its group (blkperf_grpc included).
  std::map<std::string, std::string> labels;
};

struct Inventory {
  std::vector<Host> hosts;
  // Where it came from, in words ("3 hosts from file_sd fleet.json").
  std::string source;
  // dns:///NAME:PORT only: NAME, the name the hosts' TLS certificates carry
  // (the addresses are the name's records, which certificates need not
  // list). Empty otherwise.
  std::string tls_server_name;
};

// Parses a --hosts value (forms above). InvalidArgument naming the entry or
// `FILE:LINE` and the reason for a malformed address, a duplicate address,
// an empty inventory; NotFound/PermissionDenied for an unreadable file;
// Unavailable when a dns:/// name does not resolve.
absl::StatusOr<Inventory> LoadInventory(const std::string& hosts);

// The pieces of a parse, exposed for tests.
absl::StatusOr<Inventory> ParseHostList(const std::string& list);
absl::StatusOr<Inventory> ParseHostFile(const std::string& text,
                                        const std::string& name);
absl::StatusOr<Inventory> ParseFileSdJson(const std::string& text,
                                          const std::string& name);
absl::StatusOr<Inventory> ParseFileSdYaml(const std::string& text,
                                          const std::string& name);

// Checks host:port (host a name, IPv4 or [IPv6], port 1..65535).
// InvalidArgument naming `where` and the value otherwise.
absl::Status CheckAddress(const std::string& address, const std::string& where);

// The file_sd JSON for `inventory`: one group per host, target
// host:<metrics port> (its metrics_address when known), label
// blkperf_grpc=<control port> plus its other labels.
std::string FormatFileSd(const Inventory& inventory, int metrics_port);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_INVENTORY_H_

// Why a connection to blkperfd failed, in words that name the cause: a
// name that does not resolve, nothing listening (refused), no answer, a
// plaintext daemon for a TLS client or the reverse, the daemon's
// certificate or the client's refused. Connection::Open calls these; each
// costs at most `timeout` and is only run on the failure path (Open checks
// reachability only once its channel did not get ready).
//
//   if (absl::Status s = CheckReachable("db7:7777", absl::Seconds(5)); !s.ok())
//     return s;   // NotFound (DNS) or Unavailable (refused, no answer)
#ifndef BLKPERF_WIRE_CONNECT_DIAGNOSIS_H_
#define BLKPERF_WIRE_CONNECT_DIAGNOSIS_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "wire/connection.h"

namespace blkperf {

// host:port resolves and one of its addresses accepts a TCP connection
// within `timeout` (a refused connect is tried again for up to 500 ms).
// NotFound naming the host when it does not resolve; Unavailable
// "connection refused ... nothing listens" or "no answer within
// `answer_window`" (how long the caller has waited in all; `timeout` when
// zero) otherwise. OK for unix: and other URI-scheme servers (nothing to
// check here).
absl::Status CheckReachable(
    const std::string& server, absl::Duration timeout,
    absl::Duration answer_window = absl::ZeroDuration());

// After a channel made with `options` failed to connect although TCP
// reaches the server: which side of the handshake refused, found by
// calling GetCapabilities on channels with fewer TLS settings.
// FailedPrecondition naming the cause and the flag to fix.
absl::Status DiagnoseHandshake(const ChannelOptions& options,
                               absl::Duration timeout);

}  // namespace blkperf

#endif  // BLKPERF_WIRE_CONNECT_DIAGNOSIS_H_

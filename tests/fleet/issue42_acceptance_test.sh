#!/usr/bin/env bash
# The interface of issue 42, as its acceptance script states it:
#  - whenever the DaemonSet's container args or the systemd env's flags give
#    blkperfd --tls_cert, they also give it --roles_file;
#  - `blkperf fleet abort no-such-run` and `blkperf fleet report no-such-run`
#    are known commands, whose errors are about the run or the hosts;
#  - `blkperf fleet run --hosts=127.0.0.1:1 --runtim=2s` exits 2 (usage).
# Usage: issue42_acceptance_test.sh BLKPERF DAEMONSET.yaml BLKPERFD.env
set -euo pipefail
blkperf=$1 daemonset=$2 env=$3
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$daemonset" "$env" <<'PY' || fail "--tls_cert without --roles_file"
import shlex, sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc["kind"] == "DaemonSet":
        for c in doc["spec"]["template"]["spec"]["containers"]:
            args = c.get("command", []) + c.get("args", [])
            if any(a.startswith("--tls_cert") for a in args):
                assert any(a.startswith("--roles_file=") for a in args), c["name"]
flags = []
for line in open(sys.argv[2]):
    if line.strip() and not line.lstrip().startswith("#"):
        flags += shlex.split(line.partition("=")[2])
if any(f.startswith("--tls_cert") for f in flags):
    assert any(f.startswith("--roles_file=") for f in flags), "blkperfd.env"
PY

for cmd in abort report; do
  rc=0
  "$blkperf" fleet "$cmd" no-such-run --hosts=127.0.0.1:1 --connect_timeout=1s \
    --retries=0 > /dev/null 2> "$dir/$cmd.err" || rc=$?
  [[ $rc == 1 ]] || fail "fleet $cmd no-such-run exited $rc: $(cat "$dir/$cmd.err")"
  ! grep -qi "unknown fleet command" "$dir/$cmd.err" || fail "fleet $cmd is unknown"
  grep -q "run no-such-run is on none of the 1 hosts" "$dir/$cmd.err" \
    && grep -q "127.0.0.1:1" "$dir/$cmd.err" \
    || fail "fleet $cmd error is not about the run and the hosts: $(cat "$dir/$cmd.err")"
done

rc=0
"$blkperf" fleet run --hosts=127.0.0.1:1 --runtim=2s > /dev/null 2> "$dir/usage.err" || rc=$?
[[ $rc == 2 ]] || fail "--runtim=2s exited $rc: $(cat "$dir/usage.err")"
echo PASS

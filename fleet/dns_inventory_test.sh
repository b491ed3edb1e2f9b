#!/usr/bin/env bash
# dns:/// inventories resolve to every A and AAAA record of the name (what a
# Kubernetes headless Service's name holds: one record per ready daemon).
# The name is served from /etc/hosts, which getaddrinfo reads first
# (nsswitch "files"), bind-mounted over in a private mount namespace, so
# the machine's own /etc/hosts is untouched (root, like the other fleet
# tests). Checks `fleet inventory` as a list and as file_sd, and that the
# file_sd file read back names the same control addresses.
set -euo pipefail
blkperf=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }

grep -Eq '^hosts:.*\bfiles\b' /etc/nsswitch.conf \
  || fail "/etc/nsswitch.conf does not resolve hosts from files"
cat > "$dir/hosts" <<'HOSTS'
127.0.0.1 localhost
10.77.0.1 blkperfd.fleet.test
10.77.0.2 blkperfd.fleet.test
10.77.0.3 blkperfd.fleet.test
fd00:77::4 blkperfd.fleet.test
HOSTS
# Runs "$@" with $dir/hosts as /etc/hosts.
with_hosts() {
  unshare --mount --propagation private \
    sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$dir/hosts" "$@"
}

expected=$'10.77.0.1:7777\n10.77.0.2:7777\n10.77.0.3:7777\n[fd00:77::4]:7777'
got=$(with_hosts "$blkperf" fleet inventory \
        --hosts=dns:///blkperfd.fleet.test:7777 2> "$dir/list.err" | sort)
[[ $got == "$expected" ]] || fail "dns:/// listed:
$got
expected every record:
$expected"
grep -q "4 hosts from dns:///blkperfd.fleet.test:7777" "$dir/list.err" \
  || fail "source line: $(cat "$dir/list.err")"

with_hosts "$blkperf" fleet inventory --hosts=dns:///blkperfd.fleet.test:7777 \
  --format=file_sd --metrics_port=9500 > "$dir/fleet.json"
python3 - "$dir/fleet.json" <<'PY' || fail "file_sd of the dns:/// inventory"
import json, sys
groups = json.load(open(sys.argv[1]))
targets = sorted(t for g in groups for t in g["targets"])
assert targets == ["10.77.0.1:9500", "10.77.0.2:9500", "10.77.0.3:9500",
                   "[fd00:77::4]:9500"], targets
assert all(g["labels"]["blkperf_grpc"] == "7777" for g in groups), groups
PY
# The file Prometheus scrapes gives back the control addresses.
back=$("$blkperf" fleet inventory --hosts="$dir/fleet.json" 2>/dev/null | sort)
[[ $back == "$expected" ]] || fail "file_sd read back: $back"

# A name without records is refused, named.
if with_hosts "$blkperf" fleet inventory --hosts=dns:///absent.fleet.test:7777 \
     > /dev/null 2> "$dir/absent.err"; then
  fail "an unresolvable name was accepted"
fi
grep -q 'cannot resolve "dns:///absent.fleet.test:7777"' "$dir/absent.err" \
  || fail "error: $(cat "$dir/absent.err")"
echo PASS

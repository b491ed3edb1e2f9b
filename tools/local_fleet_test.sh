#!/usr/bin/env bash
# tools/local_fleet.sh as the README gives it: 3 namespaced daemons with
# mutual TLS, one fleet run completed on all of them, and nothing left
# behind (namespaces, daemons, files). Root.
set -euo pipefail
script=$(readlink -f "$1")
export BLKPERFD=$(readlink -f "$2") BLKPERF=$(readlink -f "$3")
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
export LOCAL_FLEET_PREFIX=lft-$$ TMPDIR=$dir/tmp
mkdir -p "$TMPDIR"
rc=0
"$script" 3 --runtime=2s --interval=500ms --start_margin=300ms --json \
  > "$dir/report.json" 2> "$dir/err.txt" || rc=$?
[[ $rc == 0 ]] || fail "local_fleet.sh exited $rc: $(cat "$dir/err.txt")"
python3 - "$dir/report.json" <<'PY' || fail "report: $(head -c 2000 "$dir/report.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["outcome"] == "completed", r["outcome"]
addresses = [h["address"] for h in r["hosts"]]
assert len(addresses) == len(set(addresses)) == 3, addresses
assert all(h["state"] == "completed" for h in r["hosts"])
assert int(r["merged"]["total"]["ios"]) > 0
# Each host read its own file (file_sd label blkperf_targets).
paths = [h["report"]["targets"][0]["path"] for h in r["hosts"]]
assert len(set(paths)) == 3 and all(p.endswith("/target") for p in paths), paths
assert sorted(h["labels"]["host"] for h in r["hosts"]) == ["h1", "h2", "h3"]
PY
grep -q "3 daemons with mutual TLS in namespaces $LOCAL_FLEET_PREFIX-1..3" "$dir/err.txt" \
  || fail "no start line: $(cat "$dir/err.txt")"
! ip netns list | grep -q "^$LOCAL_FLEET_PREFIX-" || fail "namespaces left: $(ip netns list)"
[[ -z $(ls -A "$TMPDIR") ]] || fail "files left: $(ls -A "$TMPDIR")"
! pgrep -f "blkperfd serve --listen=.*--roles_file=$TMPDIR" > /dev/null || fail "daemons left"
# Usage errors exit 2.
rc=0; "$script" 0 > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "local_fleet.sh 0 exited $rc, not 2"
echo PASS

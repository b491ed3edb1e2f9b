# Sourced by the fleet scale tests: N fake hosts served by fake_fleet_hosts
# processes of at most PER_PROCESS hosts each, so that every process stays
# within its descriptor limit; process k listens on loopback address
# 127.0.10.(k+1) and its hosts' clocks are hours apart (host i's index
# counts over the whole fleet).
#
#   source "$(dirname "$0")/testing/fake_fleet_processes.sh"
#   trap stop_fake_fleet EXIT
#   start_fake_fleet FAKE_FLEET_HOSTS 10000 2000 "$dir" [--refuse_arm_every=1000 ...]
#   # one host:port a line in $dir/hosts.txt
fake_fleet_pids=()

stop_fake_fleet() {
  local pid
  for pid in "${fake_fleet_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${fake_fleet_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  fake_fleet_pids=()
}

# start_fake_fleet BINARY HOSTS PER_PROCESS DIR [FLAG...]: the flags go to
# every process. Exits 1 (naming the process) when one does not start.
start_fake_fleet() {
  local fake=$1 hosts=$2 per_process=$3 dir=$4
  shift 4
  [[ $hosts =~ ^[1-9][0-9]*$ && $per_process =~ ^[1-9][0-9]*$ ]] || {
    echo "FAIL: the host count and hosts per process must be counts >= 1" >&2
    exit 1
  }
  local processes=$(( (hosts + per_process - 1) / per_process ))
  (( processes <= 250 )) || { echo "FAIL: more than 250 fake host processes" >&2; exit 1; }
  local k first n
  for ((k = 0; k < processes; ++k)); do
    first=$((k * per_process))
    n=$(( hosts - first < per_process ? hosts - first : per_process ))
    rm -f "$dir/hosts.$k.txt"
    "$fake" --hosts="$n" --first_host="$first" --bind_address="127.0.10.$((k + 1))" \
      --address_file="$dir/hosts.$k.txt" "$@" &
    fake_fleet_pids+=($!)
  done
  for ((k = 0; k < processes; ++k)); do
    for _ in $(seq 600); do
      [[ -f $dir/hosts.$k.txt ]] && break
      kill -0 "${fake_fleet_pids[$k]}" 2>/dev/null \
        || { echo "FAIL: fake host process $k exited" >&2; exit 1; }
      sleep 0.1
    done
  done
  for ((k = 0; k < processes; ++k)); do cat "$dir/hosts.$k.txt"; done > "$dir/hosts.txt"
  [[ $(wc -l < "$dir/hosts.txt") == "$hosts" ]] \
    || { echo "FAIL: fake hosts did not start" >&2; exit 1; }
}

# shellcheck shell=bash
# Cgroups for benchmark arms. An arm's processes, and the kernel workers
# started for them (io-wq workers follow the task's cpuset, not its
# affinity), are held to one CPU; arms that share a CPU get an equal share
# of it per arm, not per thread (an arm with more runnable io-wq workers
# would otherwise take more).
#
#   source bench/lib/arm_cgroups.sh
#   trap arm_cgroups_remove EXIT
#   arm_cgroup_make A 1           # arm A's cgroups, on CPU 1
#   arm_cgroup_exec A cmd args    # runs cmd inside them, waits for it
#   arm_cgroup_spawn A cmd args   # the same in the background: cmd's pid
#                                 # (not a subshell's) in $arm_cgroup_pid
#   ${arm_cgroup_freezer[A]}      # "FILE FROZEN THAWED": freezes and thaws
#                                 # the arm (bench/lib/sliced_pair.py)
#
# cgroup v1 (a cpuset hierarchy and a cpu one) or v2 (whose root gets
# +cpuset +cpu in cgroup.subtree_control for the run, taken back by
# arm_cgroups_remove if this file added them). Needs root.

declare -A arm_cgroup_dirs  # arm name -> its cgroup directories
# arm name -> "FILE FROZEN THAWED": the file that freezes the arm's cgroup
# (cgroup v1 freezer.state, v2 cgroup.freeze) and its two values.
declare -A arm_cgroup_freezer
arm_cgroup_v2_added=()

# Creates the cgroups of arm $1, on CPU $2 with the default CPU share.
arm_cgroup_make() {
  local name=$1 cpu=$2 leaf v1=/sys/fs/cgroup/cpuset v2=/sys/fs/cgroup d
  leaf=blkperf-bench-$$-$name
  if [[ -f $v1/cpuset.cpus ]]; then
    local cpu_root=
    for d in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
      [[ -f $d/cpu.shares ]] && { cpu_root=$d; break; }
    done
    [[ -n $cpu_root ]] || { echo "arm_cgroups: cgroup v1 has no cpu hierarchy (cpu.shares)" >&2; return 1; }
    mkdir "$v1/$leaf" "$cpu_root/$leaf"
    arm_cgroup_dirs[$name]="$v1/$leaf $cpu_root/$leaf"
    if [[ -d /sys/fs/cgroup/freezer ]]; then
      mkdir "/sys/fs/cgroup/freezer/$leaf"
      arm_cgroup_dirs[$name]+=" /sys/fs/cgroup/freezer/$leaf"
      arm_cgroup_freezer[$name]="/sys/fs/cgroup/freezer/$leaf/freezer.state FROZEN THAWED"
    fi
    cat "$v1/cpuset.mems" > "$v1/$leaf/cpuset.mems"
    echo "$cpu" > "$v1/$leaf/cpuset.cpus"
  elif [[ -f $v2/cgroup.controllers ]]; then
    for d in cpuset cpu; do
      grep -qw "$d" "$v2/cgroup.controllers" ||
        { echo "arm_cgroups: cgroup v2 has no $d controller" >&2; return 1; }
      if ! grep -qw "$d" "$v2/cgroup.subtree_control"; then
        echo "+$d" > "$v2/cgroup.subtree_control"
        arm_cgroup_v2_added+=("$d")
      fi
    done
    mkdir "$v2/$leaf"
    arm_cgroup_dirs[$name]=$v2/$leaf
    arm_cgroup_freezer[$name]="$v2/$leaf/cgroup.freeze 1 0"
    echo "$cpu" > "$v2/$leaf/cpuset.cpus"
  else
    echo "arm_cgroups: no cgroup v1 cpuset hierarchy and no cgroup v2" >&2
    return 1
  fi
}

# shellcheck disable=SC2016  # expanded by the bash -c below
arm_cgroup_enter='for d in $1; do echo $$ > "$d/cgroup.procs" || exit 1; done
  shift; exec "$@"'

# Runs "${@:2}" inside arm $1's cgroups.
arm_cgroup_exec() {
  local dirs=${arm_cgroup_dirs[$1]:?arm_cgroup_exec: no cgroups for arm $1}
  shift
  bash -c "$arm_cgroup_enter" _ "$dirs" "$@"
}

# Starts "${@:2}" inside arm $1's cgroups in the background; its pid (the
# command's own, so a signal reaches it) in arm_cgroup_pid.
arm_cgroup_spawn() {
  local dirs=${arm_cgroup_dirs[$1]:?arm_cgroup_spawn: no cgroups for arm $1}
  shift
  bash -c "$arm_cgroup_enter" _ "$dirs" "$@" &
  # shellcheck disable=SC2034  # read by the caller
  arm_cgroup_pid=$!
}

# Kills whatever still runs in arm $1's cgroups (a script stopped in the
# middle of a sliced round leaves an arm frozen there) and thaws them, so
# the killed tasks can exit.
arm_cgroup_kill_leftovers() {
  local d pid file thawed
  for d in ${arm_cgroup_dirs[$1]}; do
    [[ -r $d/cgroup.procs ]] || continue
    while read -r pid; do
      kill -KILL "$pid" 2> /dev/null || true
    done < "$d/cgroup.procs"
  done
  if [[ -n ${arm_cgroup_freezer[$1]:-} ]]; then
    read -r file _ thawed <<< "${arm_cgroup_freezer[$1]}"
    echo "$thawed" > "$file" 2> /dev/null || true
  fi
}

# Removes every arm's cgroups, killing what is left in them, once their
# tasks are gone (an exiting process's io-wq workers may linger a moment).
arm_cgroups_remove() {
  local name d tries
  for name in "${!arm_cgroup_dirs[@]}"; do
    arm_cgroup_kill_leftovers "$name"
    for d in ${arm_cgroup_dirs[$name]}; do
      for ((tries = 0; tries < 20; tries++)); do
        rmdir "$d" 2> /dev/null && break
        [[ -d $d ]] || break
        sleep 0.1
      done
    done
  done
  arm_cgroup_dirs=()
  arm_cgroup_freezer=()
  for d in "${arm_cgroup_v2_added[@]}"; do
    echo "-$d" > /sys/fs/cgroup/cgroup.subtree_control || true
  done
  arm_cgroup_v2_added=()
}

#!/usr/bin/env bash
# slurm-local.sh - a throw-away single-node Slurm cluster (munged, slurmctld, slurmd from Debian's
# slurm-wlm) with all of its state in one folder, for tests of the Slurm executor.
#
#   slurm-local.sh start DIR [OWNER_PID]   start the daemons; prints "SLURM_CONF=DIR/slurm.conf"
#                                         once the node is idle. With OWNER_PID, a watchdog stops
#                                         the cluster when that process ends (even if it crashed).
#   slurm-local.sh stop DIR                scancel everything, wait for an empty queue, stop the
#                                         daemons by their PIDs (slurmstepd outlives slurmd).
#
# Ports: SLURM_LOCAL_CTLD_PORT and SLURM_LOCAL_SLURMD_PORT if set, otherwise free ones chosen at
# random in 20000-39999 (both daemons bind to all addresses, and several engineers may run this
# at once, so 6817/6818 are not assumed free). No systemd, nothing outside DIR is touched.
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cmd=${1:-} dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: slurm-local.sh start|stop DIR [OWNER_PID]" >&2
  exit 2
fi
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
export SLURM_CONF="$dir/slurm.conf"

port_free() {
  [ -z "$(ss -Htan "( sport = :$1 )" 2>/dev/null)" ]
}

pick_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 20000))
    if port_free "$p" && [ "$p" != "${2:-}" ]; then echo "$p"; return 0; fi
  done
  echo "slurm-local.sh: no free TCP port found in 20000-39999" >&2
  return 1
}

# Is the process running (a zombie whose parent has not reaped it yet counts as gone)?
alive() {
  [ -r "/proc/$1/stat" ] && ! sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'
}

stop() {
  local f pid i
  if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ] &&
     alive "$(cat "$dir/slurmctld.pid")"; then
    scancel --full --quiet -u "$(id -un)" 2>/dev/null
    for i in $(seq 1 100); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  for f in slurmd slurmctld munged; do
    [ -f "$dir/$f.pid" ] || continue
    pid=$(cat "$dir/$f.pid")
    kill "$pid" 2>/dev/null
    for i in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    rm -f "$dir/$f.pid"
  done
  # Steps whose slurmd is gone: any slurmstepd still running for this cluster's spool folder.
  for pid in $(pgrep -x slurmstepd 2>/dev/null); do
    if tr '\0' ' ' 2>/dev/null < "/proc/$pid/environ" | grep -q "SLURM_CONF=$dir/slurm.conf"; then
      kill -9 "$pid" 2>/dev/null
    fi
  done
  if [ -f "$dir/watchdog.pid" ]; then
    pid=$(cat "$dir/watchdog.pid")
    rm -f "$dir/watchdog.pid"
    [ "$pid" != "${BASHPID:-$$}" ] && kill "$pid" 2>/dev/null
  fi
  return 0
}

start() {
  local owner=${1:-} ctld slurmd i
  for t in munged slurmctld slurmd sbatch squeue scancel scontrol; do
    command -v "$t" > /dev/null || {
      echo "slurm-local.sh: '$t' not found: install slurm-wlm slurmctld slurmd slurm-client munge (scripts/deps.sh)" >&2
      return 1
    }
  done
  ctld=${SLURM_LOCAL_CTLD_PORT:-$(pick_port)} || return 1
  slurmd=${SLURM_LOCAL_SLURMD_PORT:-$(pick_port "" "$ctld")} || return 1
  for p in "$ctld" "$slurmd"; do
    port_free "$p" || { echo "slurm-local.sh: TCP port $p is in use" >&2; return 1; }
  done
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  local cpus mem
  cpus=$(nproc)
  cat > "$dir/slurm.conf" <<EOF
ClusterName=vtalocal
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld
SlurmdPort=$slurmd
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  echo "CgroupPlugin=cgroup/v1" > "$dir/cgroup.conf"
  munged -F --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket.2" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
    --origin=127.0.0.1 --force > "$dir/log/munged.out" 2>&1 &
  echo $! > "$dir/munged.pid"
  for i in $(seq 1 50); do [ -S "$dir/munge/munge.socket.2" ] && break; sleep 0.1; done
  [ -S "$dir/munge/munge.socket.2" ] || { echo "slurm-local.sh: munged did not start (log: $dir/log/munged.log)" >&2; stop; return 1; }
  slurmctld -D -i -f "$dir/slurm.conf" > "$dir/log/slurmctld.out" 2>&1 &
  echo $! > "$dir/slurmctld.pid"
  slurmd -D -N localhost -f "$dir/slurm.conf" > "$dir/log/slurmd.out" 2>&1 &
  echo $! > "$dir/slurmd.pid"
  if [ -n "$owner" ]; then
    # The watchdog: a process of its own session, so that it survives the test's process group.
    setsid bash -c 'while kill -0 '"$owner"' 2>/dev/null && [ -f "'"$dir"'/watchdog.pid" ]; do sleep 1; done
                    [ -f "'"$dir"'/watchdog.pid" ] && exec "'"$self"'" stop "'"$dir"'"' \
      > /dev/null 2>&1 < /dev/null &
    echo $! > "$dir/watchdog.pid"
  fi
  for i in $(seq 1 150); do
    if sinfo -h -N -o %t 2>/dev/null | grep -qx idle; then
      echo "SLURM_CONF=$dir/slurm.conf"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm-local.sh: the node did not become idle within 15 s (logs: $dir/log/)" >&2
  stop
  return 1
}

case $cmd in
  start) start "${3:-}" ;;
  stop) stop ;;
  *) echo "slurm-local.sh: unknown command '$cmd' (start or stop)" >&2; exit 2 ;;
esac

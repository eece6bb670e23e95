#!/usr/bin/env bash
# A private single-node Slurm (munged + slurmctld + slurmd from Debian's slurm-wlm and munge),
# configured in a temporary directory, reachable on 127.0.0.1 only, on free ports.
#
# Sourced by the tests:      source tests/slurm/local_slurm.sh
#                            local_slurm_start            # exports SLURM_CONF, LOCAL_SLURM_DIR
#                            trap local_slurm_stop EXIT   # (local_slurm_start sets this trap itself)
# Or by hand, for trying collslurm:
#   tests/slurm/local_slurm.sh start     prints `export SLURM_CONF=...`; the cluster keeps running
#   tests/slurm/local_slurm.sh stop DIR  stops the cluster started in DIR
#
# Configuration choices (slurm.conf below), all needed or useful in a container without systemd:
#   - ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, JobAcctGatherType none: no cgroup
#     plugin at all, so slurmd runs without a delegated cgroup hierarchy (gVisor, Docker, CI).
#   - SelectType=select/linear: a job gets the whole node, so array tasks run one after another
#     and a benchmark never shares the 2 cores with another task. Jobs with more processes than
#     CPUs use sbatch --overcommit (collslurm: slurm.overcommit: true).
#   - The node's CPUs/sockets/cores come from `slurmd -C` (no "configuration differs" drain).
#   - AuthType=auth/munge with our own munged on its own socket (AuthInfo=socket=...) and key.
#   - CommunicationParameters=NoCtldInAddrAny,NoInAddrAny: the daemons bind 127.0.0.1 only.
#   - AccountingStorageType=accounting_storage/none: no slurmdbd, hence no sacct (collslurm
#     status falls back to squeue + the per-task status files).
#   - SlurmUser = the user running the test (root in CI); KillWait=5 so cancelled tasks end quickly.

local_slurm_log() { printf '[local-slurm] %s\n' "$*" >&2; }

# local_slurm_free_ports N: N distinct free TCP ports on 127.0.0.1.
local_slurm_free_ports() {
  /usr/bin/python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

local_slurm_require() {
  local missing=() c
  for c in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
  if ((${#missing[@]})); then
    local_slurm_log "missing ${missing[*]}: install Debian's slurm-wlm and munge (./collrepro deps installs them from .ci/extra-packages)"
    return 1
  fi
}

# local_slurm_write_conf DIR CTLD_PORT SLURMD_PORT
local_slurm_write_conf() {
  local d=$1 ctld_port=$2 slurmd_port=$3 hw cpus sockets cores threads mem
  hw=$(slurmd -C 2>/dev/null | head -1)
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
  sockets=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$hw")
  cores=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$hw")
  threads=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$hw")
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
  cpus=${cpus:-$(nproc)}
  local shape="CPUs=$cpus"
  [[ -n $sockets && -n $cores && -n $threads ]] &&
    shape+=" Boards=1 SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads"
  mem=${mem:-1024}
  ((mem > 1024)) && mem=1024
  cat >"$d/slurm.conf" <<EOF
# Written by tests/slurm/local_slurm.sh: a private single-node cluster on 127.0.0.1.
ClusterName=collrepro
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$d/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/linear
SchedulerType=sched/builtin
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=600
MaxArraySize=1001
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 $shape RealMemory=$mem State=UNKNOWN
PartitionName=collrepro Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

# local_slurm_start [DIR]: start munged, slurmctld and slurmd; wait until the node is idle.
# Sets LOCAL_SLURM_DIR and exports SLURM_CONF. Installs an EXIT trap that stops everything
# unless LOCAL_SLURM_NO_TRAP=1.
local_slurm_start() {
  local_slurm_require || return 1
  local d=${1:-}
  if [[ -z $d ]]; then d=$(mktemp -d "${TMPDIR:-/tmp}/collrepro-slurm.XXXXXX") || return 1; fi
  chmod 755 "$d"  # munged wants every directory above its socket searchable
  mkdir -p "$d"/{munge,state,spool,run,log,tmp}
  LOCAL_SLURM_DIR=$d
  LOCAL_SLURM_PIDS=()
  [[ ${LOCAL_SLURM_NO_TRAP:-0} == 1 ]] || trap local_slurm_stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  # munged on its own socket, with its own key (1024 bytes of random data).
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none && chmod 400 "$d/munge/munge.key"
  munged --foreground --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge/munged.seed" \
    >"$d/log/munged.out" 2>&1 &
  LOCAL_SLURM_PIDS+=($!)
  echo "$!" >"$d/run/munged.bgpid"
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -S $d/munge/munge.socket ]] && break
    sleep 0.1
  done
  if ! munge --socket="$d/munge/munge.socket" -n </dev/null | unmunge --socket="$d/munge/munge.socket" >/dev/null 2>&1; then
    local_slurm_log "munged did not come up: $(tail -3 "$d/log/munged.log" "$d/log/munged.out" 2>/dev/null | tr '\n' ' ')"
    return 1
  fi

  local attempt ports
  for attempt in 1 2 3; do
    read -r -a ports < <(local_slurm_free_ports 2)
    local_slurm_write_conf "$d" "${ports[0]}" "${ports[1]}"
    export SLURM_CONF=$d/slurm.conf
    slurmctld -D -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
    LOCAL_SLURM_PIDS+=($!)
    echo "$!" >"$d/run/slurmctld.bgpid"
    slurmd -D -N localhost -f "$SLURM_CONF" >"$d/log/slurmd.out" 2>&1 &
    LOCAL_SLURM_PIDS+=($!)
    echo "$!" >"$d/run/slurmd.bgpid"
    if local_slurm_wait_idle 60; then
      local_slurm_log "up in $d (slurmctld 127.0.0.1:${ports[0]}, slurmd 127.0.0.1:${ports[1]}, SLURM_CONF=$SLURM_CONF)"
      return 0
    fi
    # A port taken between choosing and binding: try again with new ports.
    if grep -qi "address already in use" "$d"/log/slurm*.log "$d"/log/slurm*.out 2>/dev/null; then
      local_slurm_log "port collision, retrying ($attempt)"
      local_slurm_kill_pids "$(cat "$d/run/slurmd.bgpid")" "$(cat "$d/run/slurmctld.bgpid")"
      continue
    fi
    break
  done
  local_slurm_log "the cluster did not come up; last log lines:"
  tail -n 8 "$d/log/slurmctld.log" "$d/log/slurmd.log" "$d/log/slurmctld.out" "$d/log/slurmd.out" >&2 2>/dev/null
  return 1
}

# local_slurm_wait_idle SECONDS: until slurmctld answers and the node is idle.
local_slurm_wait_idle() {
  local deadline=$((SECONDS + $1)) state=""
  while ((SECONDS < deadline)); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
    case $state in
      idle) return 0 ;;
      *drain* | *down* | *fail*)
        # ReturnToService=2 brings a node back once slurmd registers; say why if it stays down.
        ;;
    esac
    for p in "$(cat "$LOCAL_SLURM_DIR/run/slurmctld.bgpid" 2>/dev/null)" "$(cat "$LOCAL_SLURM_DIR/run/slurmd.bgpid" 2>/dev/null)"; do
      [[ -n $p ]] && ! local_slurm_alive "$p" && { local_slurm_log "a daemon exited early (pid $p)"; return 1; }
    done
    sleep 0.5
  done
  local_slurm_log "node state after $1 s: '${state:-no answer}' $(sinfo -h -N -o '%E' 2>/dev/null | head -1)"
  return 1
}

# local_slurm_alive PID: the process exists and is not a zombie.
local_slurm_alive() {
  [[ -n $1 ]] && kill -0 "$1" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# local_slurm_kill_pids PID...: TERM, wait up to LOCAL_SLURM_GRACE (10) seconds, then KILL.
local_slurm_kill_pids() {
  local p left i
  for p in "$@"; do [[ -n $p ]] && kill -TERM "$p" 2>/dev/null; done
  for ((i = 0; i < ${LOCAL_SLURM_GRACE:-10} * 10; i++)); do
    left=0
    for p in "$@"; do local_slurm_alive "$p" && left=1; done
    ((left)) || return 0
    sleep 0.1
  done
  for p in "$@"; do [[ -n $p ]] && kill -KILL "$p" 2>/dev/null; done
  return 0
}

# Processes left by this cluster's jobs: job processes carry our SLURM_CONF and a SLURM_JOB_ID
# in their environment; slurmstepd holds files in our spool directory.
local_slurm_leftovers() {
  local d=$1 f p
  # One grep over every environment (NUL-separated lines), then the SLURM_JOB_ID test on the few hits.
  while read -r f; do
    p=${f#/proc/}
    p=${p%/environ}
    [[ $p == "$$" || $p == "$BASHPID" ]] && continue
    grep -qsz '^SLURM_JOB_ID=' "$f" && echo "$p"
  done < <(grep -lsxz -- "SLURM_CONF=$d/slurm.conf" /proc/[0-9]*/environ 2>/dev/null)
  local fd
  for p in $(pgrep -x slurmstepd 2>/dev/null); do
    for fd in /proc/"$p"/fd/*; do
      if [[ $(readlink "$fd" 2>/dev/null) == "$d/"* ]]; then
        echo "$p"
        break
      fi
    done
  done
  return 0
}

# local_slurm_stop [DIR]: cancel every job, stop the daemons, remove the directory
# (kept when LOCAL_SLURM_KEEP=1, e.g. to read the logs).
local_slurm_stop() {
  local rc=$?
  local d=${1:-${LOCAL_SLURM_DIR:-}}
  [[ -n $d && -d $d ]] || return $rc
  trap - EXIT
  local ctld
  ctld=$(cat "$d/run/slurmctld.bgpid" 2>/dev/null)
  if [[ -f $d/slurm.conf ]] && local_slurm_alive "$ctld"; then
    # Cancel every job while the controller runs (bounded: a hung controller must not hang us).
    SLURM_CONF=$d/slurm.conf timeout 15 scancel --quiet --full --user=root >/dev/null 2>&1 || true
    local i
    for ((i = 0; i < 40; i++)); do
      [[ -z $(SLURM_CONF=$d/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.25
    done
  fi
  local pids=()
  for f in slurmd slurmctld; do
    [[ -f $d/run/$f.bgpid ]] && pids+=("$(cat "$d/run/$f.bgpid")")
  done
  ((${#pids[@]})) && local_slurm_kill_pids "${pids[@]}"
  local left
  left=$(local_slurm_leftovers "$d" | tr '\n' ' ')
  if [[ -n ${left// /} ]]; then
    local_slurm_log "stopping leftover job processes: $left"
    # shellcheck disable=SC2086
    LOCAL_SLURM_GRACE=2 local_slurm_kill_pids $left
  fi
  [[ -f $d/run/munged.bgpid ]] && local_slurm_kill_pids "$(cat "$d/run/munged.bgpid")"
  if [[ ${LOCAL_SLURM_KEEP:-0} == 1 ]]; then
    local_slurm_log "stopped; kept $d (logs in $d/log)"
  else
    rm -rf "$d"
    local_slurm_log "stopped and removed $d"
  fi
  LOCAL_SLURM_DIR=""
  return $rc
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -uo pipefail
  case "${1:-}" in
    start)
      LOCAL_SLURM_NO_TRAP=1
      if local_slurm_start "${2:-}"; then
        trap - INT TERM
        echo "export SLURM_CONF=$SLURM_CONF"
        echo "# stop with: $0 stop $LOCAL_SLURM_DIR" >&2
      else
        local_slurm_stop "$LOCAL_SLURM_DIR"
        exit 1
      fi
      ;;
    stop)
      [[ -n ${2:-} && -f ${2:-}/slurm.conf ]] || { echo "usage: $0 stop DIR (the directory start printed)" >&2; exit 2; }
      local_slurm_stop "$2"
      ;;
    *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
fi

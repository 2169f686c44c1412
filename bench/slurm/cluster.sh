#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, from Debian's packages, in a
# state folder of its own: slurm.conf, a munge key, spool and state
# directories, logs and pid files all under STATE_DIR.
#
#   bash bench/slurm/cluster.sh start  STATE_DIR   # installs slurm-wlm and munge if missing, starts munged, slurmctld, slurmd
#   bash bench/slurm/cluster.sh status STATE_DIR   # the daemons' pids and sinfo
#   bash bench/slurm/cluster.sh stop   STATE_DIR   # stops the three daemons by their pid files
#   bash bench/slurm/cluster.sh env    STATE_DIR   # prints the exports a client needs (SLURM_CONF)
#
# Settings (environment): SLURM_CI_CPUS (the node's CPUs; default nproc),
# SLURM_CI_CTLD_PORT and SLURM_CI_SLURMD_PORT (default: the first free
# pair from 6817/6818 upward; a port given and taken is refused),
# SLURM_CI_NO_INSTALL=1 (refuse instead of installing).
# Clients (sbatch, squeue, scontrol) need SLURM_CONF=STATE_DIR/slurm.conf.
# Exits non-zero with a message when it cannot: not root, packages missing
# and not installable, a port taken, a daemon that does not come up.
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

usage() { echo "usage: cluster.sh start|stop|status|env STATE_DIR" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1
state=$2
case $cmd in start|stop|status|env) ;; *) usage ;; esac
if [ "$cmd" = start ] && [ "$(id -u)" != 0 ]; then
  die "must run as root (slurmd runs jobs as their users; munged and slurmctld run as root here)"
fi
mkdir -p "$state"
state=$(cd "$state" && pwd)
conf=$state/slurm.conf

# A port is taken when something listens on it (TCP, any address).
port_busy() { [ -n "$(ss -Hltn "( sport = :$1 )" 2>/dev/null)" ]; }

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

install_packages() {
  local missing=()
  for b in slurmctld slurmd sbatch munged; do
    command -v "$b" >/dev/null 2>&1 || missing+=("$b")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "${SLURM_CI_NO_INSTALL:-0}" = 1 ] && die "missing ${missing[*]} and SLURM_CI_NO_INSTALL=1: apt-get install slurm-wlm munge"
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install slurm-wlm and munge"
  echo "cluster.sh: installing slurm-wlm and munge (missing: ${missing[*]})" >&2
  # Packages must not start the system's own daemons: a policy-rc.d that
  # refuses every start is put in place for the install when none is there.
  local prc=/usr/sbin/policy-rc.d added=0
  if [ ! -e $prc ]; then printf '#!/bin/sh\nexit 101\n' >$prc; chmod +x $prc; added=1; fi
  local ok=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >"$state/apt.log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$state/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$state/apt.log" 2>&1; } || ok=0
  [ $added = 1 ] && rm -f $prc
  [ $ok = 1 ] || die "apt-get install slurm-wlm munge failed (log: $state/apt.log)"
  for b in slurmctld slurmd sbatch munged; do
    command -v "$b" >/dev/null 2>&1 || die "$b still missing after installing slurm-wlm and munge"
  done
}

pick_ports() {
  if [ -n "${SLURM_CI_CTLD_PORT:-}" ] || [ -n "${SLURM_CI_SLURMD_PORT:-}" ]; then
    ctld_port=${SLURM_CI_CTLD_PORT:-6817}
    slurmd_port=${SLURM_CI_SLURMD_PORT:-6818}
    port_busy "$ctld_port" && die "port $ctld_port (SlurmctldPort) is taken: stop what listens there or set SLURM_CI_CTLD_PORT"
    port_busy "$slurmd_port" && die "port $slurmd_port (SlurmdPort) is taken: stop what listens there or set SLURM_CI_SLURMD_PORT"
    return 0
  fi
  local p
  for p in $(seq 6817 2 6897); do
    if ! port_busy "$p" && ! port_busy $((p + 1)); then
      ctld_port=$p; slurmd_port=$((p + 1)); return 0
    fi
  done
  die "no free pair of ports in 6817-6898 for slurmctld and slurmd"
}

write_conf() {
  local cpus=$1 mem node
  node=$(hostname -s)
  mem=$(awk '/MemTotal/ {print int($2/1024) - 512}' /proc/meminfo)
  cat >"$conf" <<CONF
# One-node cluster written by bench/slurm/cluster.sh; everything under $state.
ClusterName=evalsched-ci
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket.2,cred_expire=5
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/slurmd
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
MinJobAge=600
MaxArraySize=1001
InactiveLimit=0
SchedulerParameters=bf_interval=1,sched_interval=1
KillWait=5
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local n=$1 what=$2; shift 2
  local i
  for ((i = 0; i < n * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

start() {
  for f in munged slurmctld slurmd; do
    pid_alive "$state/run/$f.pid" && die "$f is already running from $state (pid $(cat "$state/run/$f.pid")): stop it first"
  done
  install_packages
  pick_ports
  mkdir -p "$state"/{munge,ctld,slurmd,run,log}
  chmod 700 "$state/munge"
  rm -f "$state"/run/*.pid
  if [ ! -s "$state/munge/munge.key" ]; then
    dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$state/munge/munge.key"
  fi
  local cpus=${SLURM_CI_CPUS:-$(nproc)}
  write_conf "$cpus"
  munged --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket.2" \
    --pid-file="$state/run/munged.pid" --log-file="$state/log/munged.log" --seed-file="$state/munge/munge.seed" ||
    die "munged did not start (log: $state/log/munged.log)"
  wait_for 10 munged test -S "$state/munge/munge.socket.2" || die "munged's socket did not appear (log: $state/log/munged.log)"
  slurmctld -f "$conf" -c >>"$state/log/slurmctld.out" 2>&1 || { stop_all; die "slurmctld did not start (log: $state/log/slurmctld.log)"; }
  wait_for 30 slurmctld env SLURM_CONF="$conf" scontrol ping || { stop_all; die "slurmctld does not answer on port $ctld_port (log: $state/log/slurmctld.log)"; }
  slurmd -f "$conf" >>"$state/log/slurmd.out" 2>&1 || { stop_all; die "slurmd did not start (log: $state/log/slurmd.log)"; }
  node_idle() { SLURM_CONF="$conf" sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)'; }
  wait_for 30 slurmd node_idle || { stop_all; die "the node did not come up idle (log: $state/log/slurmd.log; sinfo: $(SLURM_CONF="$conf" sinfo -h -N -o '%t %E' 2>&1))"; }
  echo "cluster.sh: up in $state: slurmctld :$ctld_port (pid $(cat "$state/run/slurmctld.pid")), slurmd :$slurmd_port (pid $(cat "$state/run/slurmd.pid")), $cpus CPUs; export SLURM_CONF=$conf" >&2
}

stop_one() { # stop_one NAME: TERM by pid file, then KILL after 10 s
  local f=$state/run/$1.pid pid i
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "cluster.sh: $1 (pid $pid) did not stop in 10 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$f"
}

stop_all() { stop_one slurmd; stop_one slurmctld; stop_one munged; }

status() {
  local f up=0
  for f in munged slurmctld slurmd; do
    if pid_alive "$state/run/$f.pid"; then echo "$f: running (pid $(cat "$state/run/$f.pid"))"; up=$((up + 1)); else echo "$f: not running"; fi
  done
  [ $up = 3 ] || return 1
  SLURM_CONF=$conf sinfo -N -o '%N %t %c'
}

case $cmd in
  start) start ;;
  stop) stop_all; echo "cluster.sh: stopped ($state)" >&2 ;;
  status) status ;;
  env) echo "export SLURM_CONF=$conf" ;;
esac

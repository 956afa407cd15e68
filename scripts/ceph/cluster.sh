#!/usr/bin/env bash
# A throw-away single-node Ceph 16.2 cluster for the rbd driver's tests and
# benchmarks: one monitor and one OSD on 127.0.0.1, no mgr, everything
# (config, keyrings, run dir, logs, pid files, data) inside one directory.
#
#   cluster.sh start [DIR]    create DIR (default: a new mktemp directory),
#                             start mon + OSD, create pool `rbd` and the test
#                             image `rbd/test` (layering only, 1G); prints
#                             `export CEPH_CONF=DIR/ceph.conf` as last line
#   cluster.sh stop [DIR]     kill the daemons and delete DIR
#   cluster.sh status [DIR]   `ceph -s` and `ceph osd stat`; exit 1 if down
#   cluster.sh env [DIR]      print `export CEPH_CONF=DIR/ceph.conf`
#   cluster.sh osd-kill [DIR]     SIGKILL the OSD (fault tests)
#   cluster.sh osd-restart [DIR]  start the OSD again and wait until it is up
#                             (through a supervisor process that `start`
#                             leaves running, so that a test can ask for it)
#   cluster.sh mon-kill [DIR]     SIGKILL the monitor (fault tests)
#   cluster.sh mon-restart [DIR]  start the monitor again (through the
#                             supervisor) and wait until it answers
#
# DIR defaults to $BLK_CEPH_DIR, else to the directory of the last `start`
# (recorded in ${TMPDIR:-/tmp}/blkstack-ceph.current).  Clients only need
# CEPH_CONF.
#
# Environment:
#   BLK_CEPH_OBJECTSTORE  bluestore (default: a sparse file, survives kill -9
#                         and restart) or memstore (faster, loses all data on
#                         restart: benchmarks only)
#   BLK_CEPH_TIMEOUT      seconds to wait for each start step (default 90)
#
# Every wait is time-boxed: on time-out the script prints the log tail and
# fails; it never hangs.
set -euo pipefail

POINTER="${TMPDIR:-/tmp}/blkstack-ceph.current"
TIMEOUT="${BLK_CEPH_TIMEOUT:-90}"
OBJECTSTORE="${BLK_CEPH_OBJECTSTORE:-bluestore}"
IMAGE_SIZE=1G

log() { echo "cluster.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ceph/rados/rbd CLI with a hard time limit (a hung client ignores SIGTERM).
cli() {
  local t="$1"; shift
  CEPH_CONF="$DIR/ceph.conf" timeout -k 5 "$t" "$@"
}
ceph_cmd() { cli 30 ceph --connect-timeout 20 "$@"; }

resolve_dir() {
  if [[ -n "${1:-}" ]]; then DIR="$1"
  elif [[ -n "${BLK_CEPH_DIR:-}" ]]; then DIR="$BLK_CEPH_DIR"
  elif [[ -f "$POINTER" ]]; then DIR="$(cat "$POINTER")"
  else die "no cluster directory: pass DIR, set BLK_CEPH_DIR, or run 'cluster.sh start'"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

dump_logs() {
  for f in "$DIR"/log/*.log; do
    [[ -f "$f" ]] || continue
    log "---- tail of $f"
    tail -n 20 "$f" >&2 || true
  done
}

# wait_for SECONDS DESCRIPTION COMMAND...: retries COMMAND once a second.
wait_for() {
  local secs="$1" what="$2"; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      dump_logs
      die "timed out after ${secs}s waiting for $what"
    fi
    sleep 1
  done
}

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

osd_up_and_in() {
  local j
  j="$(ceph_cmd osd stat -f json)" || return 1
  python3 -c '
import json, sys
s = json.loads(sys.argv[1])
n = s.get("num_osds", 0)
sys.exit(0 if n > 0 and s.get("num_up_osds") == n and s.get("num_in_osds") == n else 1)' "$j"
}

rados_roundtrip() {
  local obj="ready-check.$$" f="$DIR/ready.in" g="$DIR/ready.out"
  echo "ready $RANDOM" >"$f"
  cli 20 rados -p rbd put "$obj" "$f" || return 1
  cli 20 rados -p rbd get "$obj" "$g" || return 1
  cmp -s "$f" "$g" || return 1
  cli 20 rados -p rbd rm "$obj" || true
}

write_conf() {
  local fsid="$1" p2="$2" p1="$3"
  cat >"$DIR/ceph.conf" <<EOF
# Throw-away test cluster (scripts/ceph/cluster.sh).  Clients need only
# CEPH_CONF=$DIR/ceph.conf.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$p2,v1:127.0.0.1:$p1]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
mon cluster log file = $DIR/log/cluster.log
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 2
mon data avail crit = 1
osd crush chooseleaf type = 0
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
osd memory target = 1073741824
ms bind ipv6 = false

[mon]
mon data = $DIR/mon.\$id
keyring = $DIR/mon.\$id/keyring
log file = $DIR/log/\$name.log
admin socket = $DIR/run/\$name.asok

[osd]
osd data = $DIR/osd.\$id
keyring = $DIR/osd.\$id/keyring
log file = $DIR/log/\$name.log
admin socket = $DIR/run/\$name.asok
osd objectstore = $OBJECTSTORE
bluestore block create = true
bluestore block size = 4294967296
bluestore fsck on mount = false
memstore device bytes = 4294967296
osd heartbeat grace = 5

[client]
keyring = $DIR/keyring
# Test processes may run in a read-only sandbox: no client logs or sockets.
log file =
admin socket =
log to stderr = false
err to stderr = true
rbd default features = layering
EOF
}

start_osd() {
  ceph-osd -c "$DIR/ceph.conf" -i 0 2>>"$DIR/log/daemon-stderr.log" || die "ceph-osd failed to start (see $DIR/log/osd.0.log)"
  wait_for "$TIMEOUT" "osd.0 up and in" osd_up_and_in
}

cmd_start() {
  if [[ -n "${1:-}" ]]; then
    DIR="$1"
    mkdir -p "$DIR"
  else
    DIR="$(mktemp -d "${TMPDIR:-/tmp}/blkstack-ceph.XXXXXX")"
  fi
  DIR="$(cd "$DIR" && pwd)"
  [[ -e "$DIR/ceph.conf" ]] && die "$DIR already holds a cluster (stop it first)"
  case "$OBJECTSTORE" in bluestore|memstore) ;; *) die "BLK_CEPH_OBJECTSTORE must be bluestore or memstore, got '$OBJECTSTORE'";; esac
  for b in ceph-mon ceph-osd ceph-authtool monmaptool ceph rados rbd python3; do
    command -v "$b" >/dev/null || die "$b not found (scripts/setup.sh installs ceph-mon ceph-osd ceph-common)"
  done
  mkdir -p "$DIR/run" "$DIR/log" "$DIR/mon.a" "$DIR/osd.0"
  echo "$DIR" >"$POINTER"
  local t0=$SECONDS
  local fsid p2 p1
  fsid="$(cat /proc/sys/kernel/random/uuid)"
  p2="$(free_port)"; p1="$(free_port)"
  while [[ "$p1" == "$p2" ]]; do p1="$(free_port)"; done
  write_conf "$fsid" "$p2" "$p1"
  log "starting cluster in $DIR (mon v2 port $p2, v1 port $p1, $OBJECTSTORE)"

  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$DIR/mon.keyring" --import-keyring "$DIR/keyring" >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$p2,v1:127.0.0.1:$p1]" \
    "$DIR/monmap" >/dev/null
  ceph-mon -c "$DIR/ceph.conf" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring" \
    || die "ceph-mon --mkfs failed"
  ceph-mon -c "$DIR/ceph.conf" -i a 2>>"$DIR/log/daemon-stderr.log" || die "ceph-mon failed to start (see $DIR/log/mon.a.log)"
  wait_for "$TIMEOUT" "the monitor to answer" ceph_cmd mon stat

  local uuid id
  uuid="$(cat /proc/sys/kernel/random/uuid)"
  id="$(ceph_cmd osd new "$uuid")" || die "ceph osd new failed"
  [[ "$id" == 0 ]] || die "expected osd id 0, got '$id'"
  ceph-osd -c "$DIR/ceph.conf" -i 0 --mkfs --mkkey --no-mon-config --osd-uuid "$uuid" >/dev/null 2>&1 \
    || { dump_logs; die "ceph-osd --mkfs failed"; }
  ceph_cmd auth add osd.0 osd 'allow *' mon 'allow profile osd' -i "$DIR/osd.0/keyring" \
    >/dev/null 2>&1 || die "ceph auth add osd.0 failed"
  start_osd

  ceph_cmd osd pool create rbd 8 8 >/dev/null 2>&1 || die "ceph osd pool create rbd failed"
  cli 60 rbd pool init rbd || die "rbd pool init failed"
  wait_for "$TIMEOUT" "a rados put/get round trip" rados_roundtrip
  cli 60 rbd create --size "$IMAGE_SIZE" --image-feature layering rbd/test \
    || die "rbd create rbd/test failed"
  nohup bash "${BASH_SOURCE[0]}" supervise "$DIR" </dev/null >/dev/null 2>&1 &
  echo $! >"$DIR/run/supervisor.pid"
  log "cluster ready in $((SECONDS - t0))s"
  echo "export CEPH_CONF=$DIR/ceph.conf"
}

cmd_stop() {
  resolve_dir "${1:-}"
  [[ -d "$DIR" ]] || { log "$DIR does not exist: nothing to stop"; rm -f "$POINTER"; return 0; }
  [[ -f "$DIR/ceph.conf" ]] || die "$DIR is not a cluster directory (no ceph.conf); not deleting it"
  local pf pids=()
  for pf in "$DIR"/run/*.pid; do
    [[ -f "$pf" ]] || continue
    local pid; pid="$(cat "$pf")"
    # Only kill a process that really is a daemon of this cluster.
    if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$DIR"; then
      kill -9 "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  local deadline=$((SECONDS + 15)) pid
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  done
  rm -rf "$DIR"
  if [[ -f "$POINTER" && "$(cat "$POINTER")" == "$DIR" ]]; then rm -f "$POINTER"; fi
  log "stopped and removed $DIR"
}

cmd_status() {
  resolve_dir "${1:-}"
  [[ -f "$DIR/ceph.conf" ]] || die "no cluster in $DIR"
  ceph_cmd -s || return 1
  ceph_cmd osd stat || return 1
  osd_up_and_in
}

cmd_env() {
  resolve_dir "${1:-}"
  [[ -f "$DIR/ceph.conf" ]] || die "no cluster in $DIR"
  echo "export CEPH_CONF=$DIR/ceph.conf"
}

# kill_daemon NAME: SIGKILL the daemon NAME (osd.0, mon.a) and wait until
# it is gone.
kill_daemon() {
  local name="$1" pf="$DIR/run/$1.pid"
  pid_alive "$pf" || die "$name is not running"
  local pid; pid="$(cat "$pf")"
  kill -9 "$pid"
  local deadline=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || die "$name (pid $pid) survived SIGKILL for 15s"
    sleep 0.1
  done
  log "$name killed (pid $pid)"
}

cmd_osd_kill() {
  resolve_dir "${1:-}"
  kill_daemon osd.0
}

cmd_mon_kill() {
  resolve_dir "${1:-}"
  kill_daemon mon.a
}

cmd_mon_restart() {
  resolve_dir "${1:-}"
  pid_alive "$DIR/run/mon.a.pid" && die "mon.a is still running"
  local t0=$SECONDS
  if pid_alive "$DIR/run/supervisor.pid"; then
    touch "$DIR/run/mon-restart.request"
  else
    ceph-mon -c "$DIR/ceph.conf" -i a 2>>"$DIR/log/daemon-stderr.log" || die "ceph-mon failed to start"
  fi
  wait_for "$TIMEOUT" "the monitor to answer again" ceph_cmd mon stat
  log "mon.a up again after $((SECONDS - t0))s"
}

cmd_osd_restart() {
  resolve_dir "${1:-}"
  pid_alive "$DIR/run/osd.0.pid" && die "osd.0 is still running"
  local t0=$SECONDS
  if pid_alive "$DIR/run/supervisor.pid"; then
    # A process started from inside a test would be killed with the test
    # (Bazel reaps every descendant): let the supervisor start it.
    touch "$DIR/run/osd-restart.request"
    wait_for "$TIMEOUT" "osd.0 up and in (started by the supervisor)" osd_up_and_in_fresh
  else
    start_osd
  fi
  log "osd.0 up again after $((SECONDS - t0))s"
}

# Up and in, and the pid file names a live process (the mon may still report
# the killed instance as up).
osd_up_and_in_fresh() { pid_alive "$DIR/run/osd.0.pid" && osd_up_and_in; }

# Background helper started by `start`, outside any test's process tree:
# restarts the OSD or the monitor when asked through
# $DIR/run/osd-restart.request or $DIR/run/mon-restart.request.
cmd_supervise() {
  DIR="$1"
  while [[ -f "$DIR/ceph.conf" ]]; do
    if [[ -f "$DIR/run/osd-restart.request" ]]; then
      rm -f "$DIR/run/osd-restart.request"
      pid_alive "$DIR/run/osd.0.pid" || ceph-osd -c "$DIR/ceph.conf" -i 0 \
        2>>"$DIR/log/daemon-stderr.log" || log "supervisor: ceph-osd failed to start"
    fi
    if [[ -f "$DIR/run/mon-restart.request" ]]; then
      rm -f "$DIR/run/mon-restart.request"
      pid_alive "$DIR/run/mon.a.pid" || ceph-mon -c "$DIR/ceph.conf" -i a \
        2>>"$DIR/log/daemon-stderr.log" || log "supervisor: ceph-mon failed to start"
    fi
    sleep 0.2
  done
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    env) cmd_env "$@" ;;
    osd-kill) cmd_osd_kill "$@" ;;
    osd-restart) cmd_osd_restart "$@" ;;
    mon-kill) cmd_mon_kill "$@" ;;
    mon-restart) cmd_mon_restart "$@" ;;
    supervise) cmd_supervise "$@" ;;
    *) echo "usage: cluster.sh start|stop|status|env|osd-kill|osd-restart|mon-kill|mon-restart [DIR]" >&2; exit 2 ;;
  esac
}

main "$@"

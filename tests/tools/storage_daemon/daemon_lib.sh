# Shared by the storage daemon's end-to-end tests: find the binary, require
# the client tools (fail under BLK_TEST_NO_SKIP, skip otherwise), start the
# daemon on a unix socket and stop it with SIGTERM.
DAEMON="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-blkstack}/tools/storage_daemon/blkstack-storage-daemon"
[[ -x "$DAEMON" ]] || DAEMON="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/bazel-bin/tools/storage_daemon/blkstack-storage-daemon"
fail=0
pass() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
# need TOOL PACKAGE: the test cannot run without TOOL.
need() {
  command -v "$1" >/dev/null && return 0
  if [[ -n ${BLK_TEST_NO_SKIP:-} ]]; then
    echo "FAIL: $1 is missing (Debian package $2, listed in scripts/packages.txt)"; exit 1
  fi
  echo "SKIPPED: $1 is missing (apt-get install $2)"; exit 0
}
# The work directory: TEST_TMPDIR when a socket path there fits in
# sun_path (108 bytes), else a fresh directory under /tmp.
WORK="${TEST_TMPDIR:-/tmp}/sd.$$"
if (( ${#WORK} > 80 )); then WORK="$(mktemp -d /tmp/sd.XXXXXX)"; fi
mkdir -p "$WORK"
SOCK="$WORK/nbd.sock"
DPID=""
cleanup() {
  [[ -n $DPID ]] && kill -KILL "$DPID" 2>/dev/null
  [[ $WORK == /tmp/sd.* ]] && rm -rf "$WORK"
}
trap cleanup EXIT
uri() { echo "nbd+unix:///${1:-}?socket=$SOCK"; }
# start_daemon ARGS...: starts it serving on $SOCK and waits until it listens.
start_daemon() {
  rm -f "$WORK/pid" "$SOCK"
  "$DAEMON" --nbd-server "addr.type=unix,addr.path=$SOCK" --pidfile "$WORK/pid" "$@" \
    2>"$WORK/daemon.err" &
  DPID=$!
  for _ in $(seq 200); do
    [[ -s "$WORK/pid" ]] && return 0
    kill -0 "$DPID" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL: the daemon did not start: $(cat "$WORK/daemon.err")"; exit 1
}
# stop_daemon: SIGTERM; it must exit 0 within 10 s and remove its socket.
stop_daemon() {
  kill -TERM "$DPID"
  local rc
  for _ in $(seq 200); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$DPID" 2>/dev/null; then bad "daemon still running 10 s after SIGTERM"; kill -KILL "$DPID"; fi
  wait "$DPID"; rc=$?
  DPID=""
  [[ $rc == 0 ]] && pass "SIGTERM: exit 0" || bad "SIGTERM: exit $rc: $(cat "$WORK/daemon.err")"
  [[ ! -e $SOCK ]] || bad "socket file left behind"
}
# alive: the daemon still serves (nbdinfo answers with the export size).
alive() {
  nbdinfo --size "$(uri "$1")" >/dev/null 2>&1
}
# daemon_is_tsan: the daemon is a ThreadSanitizer build.  Ceph's libraries
# are not instrumented, so in such a build their own threads show up as
# races as soon as librados connects: the rbd parts of these tests say
# SKIPPED there, as the rbd driver's tests are left out of the TSan run
# (tests/block/rbd/rbd_test_util.cc, scripts/test.sh).
# Not `ldd | grep -q`: grep -q exits at the first match, ldd then dies of
# SIGPIPE, and under pipefail the pipeline fails (a TSan run of
# rbd_allocation_e2e_test started the daemon for that reason).
daemon_is_tsan() { [[ $(ldd "$DAEMON" 2>/dev/null) == *libtsan* ]]; }

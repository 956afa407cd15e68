#!/bin/bash
# fio's sync= and fsync_on_close= on the binary, against fio 3.33 on the same
# jobs, through strace: the open flag (O_SYNC for sync/1, O_DSYNC for dsync,
# neither for none/0) on the files each tool opens for the job's I/O, for a
# writing job on psync and on libaio with direct=1 and for a reading job;
# the number of fsync(2) calls fsync_on_close makes (one per file of a
# writing job, none for a reading job or without the option).
# fio and strace are required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/filesync.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
cd "$T" || fail cd

# The sync flags (O_SYNC / O_DSYNC, sorted, unique) of the openat calls of
# `file` in strace output `log`, "none" if none has one.
sync_flags() {
  local f
  f=$(grep "openat(AT_FDCWD, \"$T/$2\"" "$1" | grep -o 'O_D\?SYNC' | sort -u | tr '\n' ' ')
  echo "${f:-none}"
}
# Runs fio (tool=fio) or block-bench under strace; the trace in $1.trace.
traced() {
  local name=$1 tool=$2; shift 2
  if [ "$tool" = fio ]; then
    under_strace "$name.trace" openat,fsync,fdatasync fio --output=/dev/null "$@" \
      >"$name.out" 2>&1 || fail "fio $*: $(cat "$name.out")"
  else
    under_strace "$name.trace" openat,fsync,fdatasync "$BB" "$@" \
      >"$name.out" 2>&1 || fail "block-bench $*: $(cat "$name.out")"
  fi
}

# 1. sync= values on a writing job (psync, libaio direct=1) and a reading one.
head -c $((256 << 10)) /dev/urandom >data
n=0
for engine in "--ioengine=psync" "--ioengine=libaio --direct=1 --iodepth=4"; do
  for rw in write read; do
    for s in none 0 sync 1 dsync; do
      n=$((n + 1))
      args="--name=s --filename=$T/data --size=256k --bs=4k --rw=$rw --sync=$s $engine"
      traced fio$n fio $args
      traced bb$n bb $args
      want=$(sync_flags fio$n.trace data)
      got=$(sync_flags bb$n.trace data)
      [ "$got" = "$want" ] || fail "sync=$s rw=$rw $engine: block-bench opened with '$got', fio '$want'"
      case $s in
        sync|1) [ "$want" = "O_SYNC " ] || fail "fio's own sync=$s: '$want'" ;;
        dsync) [ "$want" = "O_DSYNC " ] || fail "fio's own sync=dsync: '$want'" ;;
        *) [ "$want" = none ] || fail "fio's own sync=$s: '$want'" ;;
      esac
    done
  done
done

# 2. A value fio refuses is refused, naming the option.
"$BB" --name=x --filename=$T/data --size=64k --sync=2 >bad.out 2>&1 && fail "sync=2 accepted"
grep -q "sync" bad.out || fail "sync=2 message: $(cat bad.out)"

# 3. fsync_on_close: fsync(2) per file of a writing job, as fio's, on files
# already laid out (no set-up fsync).
for i in 0 1; do head -c $((128 << 10)) /dev/urandom >"j.0.$i"; done
for c in "write 1" "randwrite 1" "write 0" "read 1"; do
  set -- $c
  args="--name=j --nrfiles=2 --directory=$T --size=256k --bs=4k --rw=$1 --fsync_on_close=$2"
  traced ffio fio $args
  traced fbb bb $args
  want=$(grep -c ' fsync(' ffio.trace)
  got=$(grep -c ' fsync(' fbb.trace)
  [ "$got" = "$want" ] || fail "rw=$1 fsync_on_close=$2: block-bench made $got fsync calls, fio $want"
  case $c in
    "write 1"|"randwrite 1") [ "$want" = 2 ] || fail "fio's own fsync count for $c: $want" ;;
    *) [ "$want" = 0 ] || fail "fio's own fsync count for $c: $want" ;;
  esac
done
echo PASS

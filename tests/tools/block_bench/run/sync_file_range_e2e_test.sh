#!/bin/bash
# fio's sync_file_range= on the binary, against fio 3.33 on the same jobs,
# through strace: the same sync_file_range(2) calls (offset, length, flags:
# the range written since the previous call, every N writes, none after
# the last write) for a sequential and a random writing job on psync and on
# libaio; the syncs in the JSON report as fio's (timed, not in total_ios); none for a reading
# job or with N=0; a bad value refused naming the option.
# fio and strace are required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/sfr.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
require_tool python3 python3
cd "$T" || fail cd

# Runs fio (tool=fio) or block-bench under strace, JSON report in $1.json.
traced() {
  local name=$1 tool=$2; shift 2
  if [ "$tool" = fio ]; then
    under_strace "$name.trace" sync_file_range fio --output-format=json \
      --output="$name.json" "$@" >"$name.out" 2>&1 || fail "fio $*: $(cat "$name.out")"
  else
    under_strace "$name.trace" sync_file_range "$BB" --output-format=json "$@" \
      >"$name.json" 2>"$name.out" || fail "block-bench $*: $(cat "$name.out")"
  fi
}
# The calls of trace $1 without pid and descriptor: "offset, len, flags = rc".
calls() { grep -o 'sync_file_range([0-9]*, .*' "$1" | sed 's/^sync_file_range([0-9]*, //'; }
# The job's syncs in JSON report $1: "total_ios timed" (fio times each
# sync_file_range with the syncs, lat_ns.N, but counts only fsyncs in
# total_ios).
syncs() {
  python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['jobs'][0]['sync']
print(s['total_ios'], s['lat_ns']['N'])" "$1"
}

n=0
for rw in write randwrite; do
  for engine in "--ioengine=psync" "--ioengine=libaio --iodepth=1"; do
    for v in write wait_before,write:8 wait_after:5 write,wait_after:16; do
      n=$((n + 1))
      args="--name=s --filename=$T/f$n --size=256k --bs=4k --rw=$rw --randrepeat=1 --randseed=7 --sync_file_range=$v $engine"
      # block-bench's random offsets are its own: compare counts for
      # randwrite, the whole calls for write.
      rm -f "f$n"
      traced fio$n fio $args
      rm -f "f$n"
      traced bb$n bb $args
      want=$(calls fio$n.trace | wc -l)
      got=$(calls bb$n.trace | wc -l)
      [ "$got" = "$want" ] || fail "$rw $engine sync_file_range=$v: block-bench $got calls, fio $want"
      [ "$want" -gt 0 ] || fail "fio made no call for $v"
      if [ $rw = write ]; then
        diff <(calls fio$n.trace) <(calls bb$n.trace) >d$n.diff ||
          fail "$engine sync_file_range=$v: calls differ from fio's: $(head -5 d$n.diff)"
      fi
      calls bb$n.trace | grep -qv ' = 0$' && fail "a call failed: $(calls bb$n.trace | grep -v ' = 0$' | head -1)"
      [ "$(syncs bb$n.json)" = "$(syncs fio$n.json)" ] ||
        fail "$rw $engine $v: syncs (total timed) $(syncs bb$n.json), fio $(syncs fio$n.json)"
      [ "$(syncs fio$n.json)" = "0 $want" ] || fail "fio's own syncs for $v: $(syncs fio$n.json)"
    done
  done
done
# The flags as given (fio's first call of its sequential job):
calls fio2.trace | head -1 | grep -q '^0, 32768, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE) = 0$' ||
  fail "fio's own wait_before,write:8 first call: $(calls fio2.trace | head -1)"

# A reading job and N=0: no call, by either tool.
for args in "--rw=read --sync_file_range=write" "--rw=write --sync_file_range=write:0"; do
  for tool in fio bb; do
    traced none$tool $tool --name=s --filename="$T/f1" --size=256k --bs=4k $args
    [ "$(calls none$tool.trace | wc -l)" = 0 ] || fail "$tool $args: calls made"
  done
done

# A value fio refuses.
"$BB" --name=x --filename="$T/x" --size=64k --rw=write --sync_file_range=bogus:4 >bad.out 2>&1 &&
  fail "sync_file_range=bogus:4 accepted"
grep -q "sync_file_range" bad.out || fail "message: $(cat bad.out)"
echo PASS

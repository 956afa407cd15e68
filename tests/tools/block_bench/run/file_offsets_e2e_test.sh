#!/bin/bash
# The offsets fio 3.33 and block-bench write for the same jobs (the
# "OP OFFSET LENGTH" lines of --write_iolog on both), for the offset and
# block-size options of issue 30: offset_align with a percentage offset=;
# allrandrepeat=1 repeats a random job's offsets run to run, as fio's;
# bs_unaligned lengths; write_barrier and unique_filename change nothing
# on these engines, in fio as in block-bench.
# fio is required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fileoffsets.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v fio >/dev/null; then
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "fio is missing (apt install fio)"
  echo "SKIPPED: fio is missing"
  exit 0
fi
cd "$T" || fail cd
truncate -s 1000000 data

# Runs the job on both tools; fails unless their I/O lines are the same.
# Prints the first offset.
same_offsets() {
  rm -f fio.log bb.log  # fio appends to an existing log
  fio --output=/dev/null --name=j --filename=data --write_iolog=fio.log "$@" >fio.out 2>&1 ||
    fail "fio $*: $(cat fio.out)"
  "$BB" --name=j --filename=data --write_iolog=bb.log "$@" >bb.out 2>&1 ||
    fail "block-bench $*: $(cat bb.out)"
  awk '$3 ~ /^(read|write|trim)$/ {print $3, $4, $5}' fio.log >fio.io
  awk '$3 ~ /^(read|write|trim)$/ {print $3, $4, $5}' bb.log >bb.io
  [ -s fio.io ] || fail "fio logged no I/O for $*"
  cmp -s fio.io bb.io || fail "$*: offsets differ from fio's: $(diff fio.io bb.io | head -5)"
  awk 'NR == 1 {print $2}' fio.io
}

# offset_align: a percentage offset rounded up to it (330000 -> 393216), to
# the smallest block size without it (331776), not at all for 1000 (330000).
[ "$(same_offsets --rw=write --bs=4k --size=64k --offset=33% --offset_align=64k)" = 393216 ] ||
  fail "offset_align=64k"
[ "$(same_offsets --rw=write --bs=4k --size=64k --offset=33%)" = 331776 ] || fail "offset=33%"
[ "$(same_offsets --rw=write --bs=4k --size=64k --offset=33% --offset_align=1000)" = 330000 ] ||
  fail "offset_align=1000"
[ "$(same_offsets --rw=read --bs=8k,2k --size=64k --offset=30%)" = 301056 ] ||
  fail "offset=30% with bs=8k,2k"
# bs_unaligned (and its alias): a sequential job's lengths are any byte
# count in bsrange=, back to back from offset 0, in both tools; without it
# multiples of 1k.
for tool in fio bb; do
  for flag in --bs_unaligned --blocksize_unaligned=1 ""; do
    rm -f u.log
    if [ "$tool" = fio ]; then
      fio --output=/dev/null --name=j --filename=data --write_iolog=u.log --rw=write \
        --bsrange=1k-16k --size=256k $flag >u.out 2>&1
    else
      "$BB" --name=j --filename=data --write_iolog=u.log --rw=write --bsrange=1k-16k \
        --size=256k $flag >u.out 2>&1
    fi || fail "$tool bs_unaligned $flag: $(cat u.out)"
    awk -v want="${flag:+unaligned}" '$3 == "write" {
        if ($4 != next_off) { print "gap at " $4 " (expected " next_off ")"; bad = 1 }
        next_off = $4 + $5; if ($5 % 1024) odd++; n++ }
      END { if (n < 10) { print "only " n " writes"; bad = 1 }
            if (want == "unaligned" && odd < n / 2) { print odd " of " n " unaligned"; bad = 1 }
            if (want == "" && odd) { print odd " unaligned without the option"; bad = 1 }
            exit bad }' next_off=0 u.log >u.chk || fail "$tool $flag: $(cat u.chk)"
  done
done

# write_barrier: fio issues barriers only on its sg engine, so the writes
# of a psync job are those without it, in both tools.
[ "$(same_offsets --rw=write --bs=4k --size=64k --write_barrier=2)" = 0 ] || fail "write_barrier"
[ "$(wc -l <bb.io)" = 16 ] || fail "write_barrier=2: $(wc -l <bb.io) writes, not 16"

# softrandommap: fio's fallback when its random map cannot be allocated;
# neither tool fails to make one here, so a random job still covers every
# block once, in both.
for tool in fio bb; do
  rm -f s.log
  if [ "$tool" = fio ]; then
    fio --output=/dev/null --name=j --filename=data --write_iolog=s.log --rw=randwrite --bs=4k \
      --size=256k --softrandommap=1 >s.out 2>&1
  else
    "$BB" --name=j --filename=data --write_iolog=s.log --rw=randwrite --bs=4k --size=256k \
      --softrandommap=1 >s.out 2>&1
  fi || fail "$tool softrandommap=1: $(cat s.out)"
  [ "$(awk '$3 == "write" {print $4}' s.log | sort -un | wc -l)" = 64 ] ||
    fail "$tool softrandommap=1: not every block once"
done

# unique_filename (fio: client/server mode only): the same files made by
# both tools with 0 and 1.
for u in 0 1; do
  for tool in fio bb; do
    rm -rf "d$tool" && mkdir "d$tool"
    if [ "$tool" = fio ]; then
      fio --output=/dev/null --name=n --directory="d$tool" --nrfiles=2 --size=64k --rw=write \
        --unique_filename=$u >n.out 2>&1
    else
      "$BB" --name=n --directory="d$tool" --nrfiles=2 --size=64k --rw=write \
        --unique_filename=$u >n.out 2>&1
    fi || fail "$tool unique_filename=$u: $(cat n.out)"
  done
  [ "$(ls dfio)" = "$(ls dbb)" ] || fail "unique_filename=$u: files $(ls dbb), fio's $(ls dfio)"
done

# allrandrepeat=1 with randrepeat=0: two runs issue the same random offsets
# in each tool (and without allrandrepeat, not).
repeat_runs() {
  local tool=$1; shift
  for n in 1 2; do
    rm -f r$n.log
    if [ "$tool" = fio ]; then
      fio --output=/dev/null --name=j --filename=data --write_iolog=r$n.log "$@" >r.out 2>&1
    else
      "$BB" --name=j --filename=data --write_iolog=r$n.log "$@" >r.out 2>&1
    fi || fail "$tool $*: $(cat r.out)"
    awk '$3 == "write" {print $4}' r$n.log >r$n.io
  done
  cmp -s r1.io r2.io && echo same || echo differ
}
for tool in fio bb; do
  got=$(repeat_runs $tool --rw=randwrite --bs=4k --size=256k --randrepeat=0 --allrandrepeat=1)
  [ "$got" = same ] || fail "$tool: allrandrepeat=1 runs differ"
  got=$(repeat_runs $tool --rw=randwrite --bs=4k --size=256k --randrepeat=0)
  [ "$got" = differ ] || fail "$tool: randrepeat=0 runs are the same"
done
echo PASS

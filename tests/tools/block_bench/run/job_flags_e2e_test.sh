#!/bin/bash
# fio's atomic= and bs_is_seq_rand= on the binary, beside fio 3.33:
# atomic=1 opens the job's file O_DIRECT, as fio's (strace; fio adds its
# O_ATOMIC, 0x800000, a flag Linux ignores); bs_is_seq_rand=1 gives every
# sequential I/O the read block size and every random one the write block
# size, in either direction (the lengths of each direction in write_iolog),
# and the job's header line says so, as fio's.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
fail() { echo "FAIL: $*"; exit 1; }
require_tool strace strace
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/flags.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd
head -c $((256 << 10)) /dev/urandom >data

# traced NAME TOOL ARGS...: fio (TOOL=fio) or block-bench under strace
# (openat and the read calls); the trace in NAME.trace.
traced() {
  local name=$1 tool=$2; shift 2
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio --output=/dev/null)
  under_strace "$name.trace" openat,preadv,preadv2,pread64 \
    "${cmd[@]}" "$@" >"$name.out" 2>&1
}
# direct_open TRACE: "O_DIRECT" if the job's file was opened with it, else "-".
direct_open() {
  grep "openat(AT_FDCWD, \"$T/data\"" "$1" | grep -q O_DIRECT && echo O_DIRECT || echo -
}

# 1. atomic=1 is direct=1; atomic=0 is not.
for a in 1 0; do
  args="--name=a --filename=$T/data --size=64k --bs=4k --rw=read --atomic=$a"
  traced fa fio $args || fail "fio $args: $(cat fa.out)"
  traced ba bb $args || fail "block-bench $args: $(cat ba.out)"
  want=$(direct_open fa.trace)
  got=$(direct_open ba.trace)
  echo "atomic=$a: fio $want, block-bench $got"
  [ "$got" = "$want" ] || fail "atomic=$a: block-bench opened '$got', fio '$want'"
  [ $a = 0 ] || [ "$want" = O_DIRECT ] || fail "fio's own atomic=1 without O_DIRECT"
done
# 2. bs_is_seq_rand: the lengths each direction used, as fio's iolog has them.
# lengths LOG: "read:LEN,LEN write:LEN" (sorted, distinct).
lengths() {
  awk '$3 == "read" || $3 == "write" { print $3, $5 }' "$1" | sort -u -k1,1 -k2n |
    awk '{ l[$1] = l[$1] (l[$1] == "" ? "" : ",") $2 } END { for (d in l) print d ":" l[d] }' |
    sort | tr '\n' ' '
}
for c in "randread 4k,64k" "read 4k,64k" "randwrite 4k,16k" "write 4k,16k" "randrw 8k,16k"; do
  set -- $c
  # (norandommap: with the random map, I/Os are cut to the unvisited runs
  # they start, as fio's, and which lengths that gives depends on the draws.)
  args="--name=s --filename=$T/data --size=256k --rw=$1 --bs=$2 --bs_is_seq_rand=1 --norandommap"
  rm -f fs.log bs.log  # fio appends to an existing log
  fio --output=fs.out --write_iolog=fs.log $args >/dev/null 2>&1 || fail "fio $args: $(cat fs.out)"
  "$BB" --write_iolog=bs.log $args >bs.out 2>&1 || fail "block-bench $args: $(cat bs.out)"
  want=$(lengths fs.log)
  got=$(lengths bs.log)
  echo "rw=$1 bs=$2 bs_is_seq_rand=1: fio '$want', block-bench '$got'"
  [ -n "$want" ] || fail "fio's own iolog of rw=$1 has no I/O"
  [ "$got" = "$want" ] || fail "rw=$1 bs=$2: block-bench's lengths '$got', fio's '$want'"
  grep -q "bs_is_seq_rand, ioengine=" fs.out || fail "fio's own header: $(head -1 fs.out)"
  grep -q "bs_is_seq_rand, ioengine=" bs.out || fail "block-bench's header: $(head -1 bs.out)"
done
echo PASS

#!/bin/bash
# fio's atomic=, bs_is_seq_rand= and nowait= on the binary, beside fio 3.33:
# atomic=1 opens the job's file O_DIRECT, as fio's (strace; fio adds its
# O_ATOMIC, 0x800000, a flag Linux ignores).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v strace >/dev/null; then
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "strace is missing (apt install strace)"
  echo "SKIPPED: strace is missing"
  exit 0
fi
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
  # LeakSanitizer cannot run under ptrace (the suite's other runs check leaks).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -o "$name.trace" -e trace=openat,preadv,preadv2,pread64 \
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
echo PASS

#!/usr/bin/env bash
# fio's error_dump on the real binary, beside fio 3.33.  fio fails every
# write to /dev/full with ENOSPC; block-bench cannot open a character
# device, so its writes fail the same way through the error-inject driver
# over a file.  The lines are compared with the program's prefix ("fio: ",
# "block-bench: ") and the file name taken out:
#  * error_dump=1 with ignore_error=,ENOSPC: one "io_u error on file F: No
#    space left on device: write offset=O, buflen=L" line per failed write,
#    in order, the same lines as fio's;
#  * error_dump=0 (fio 3.33's default: its --cmdhelp says 0, its HOWTO 1):
#    no such line for an ignored error, in both;
#  * error_dump=1 and a fatal error: the one failed write's line, as fio's
#    (fio prints a fatal one whatever error_dump says; block-bench with
#    error_dump=0 names it in its end-of-run summary instead).
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
truncate -s 1m a.dat
EI="driver=error-inject,file.driver=file,file.filename=$T/a.dat,event=write,errno=28"
COMMON=(--name=a --rw=write --bs=4k --size=16k)
# lines FILE: the io_u error lines of FILE, prefix and file name taken out.
lines() { sed -n -E 's/^(fio|block-bench): io_u error on file [^:]*: /io_u error on file F: /p' "$1"; }

# compare NAME ARGS...: fio and block-bench with ARGS, their io_u error lines.
compare() {
  local name=$1; shift
  fio "${COMMON[@]}" --ioengine=io_uring --filename=/dev/full "$@" >fio-$name.out 2>&1 || true
  "$BB" "${COMMON[@]}" --blockdev="$EI" "$@" >bb-$name.out 2>&1 || true
  lines fio-$name.out >fio-$name.lines
  lines bb-$name.out >bb-$name.lines
  diff -u fio-$name.lines bb-$name.lines >&2 || fail "$name: io_u error lines differ from fio's (above)"
}

compare dump1 --ignore_error=,ENOSPC --error_dump=1
[[ $(wc -l <bb-dump1.lines) == 4 ]] || fail "dump1: want 4 lines: $(cat bb-dump1.out)"
grep -qx "io_u error on file F: No space left on device: write offset=12288, buflen=4096" bb-dump1.lines ||
  fail "dump1: $(cat bb-dump1.lines)"
grep -q "^block-bench: io_u error on file $EI: " bb-dump1.out || fail "dump1: file name: $(cat bb-dump1.out)"

compare dump0 --ignore_error=,ENOSPC --error_dump=0
[[ ! -s bb-dump0.lines ]] || fail "error_dump=0 printed: $(cat bb-dump0.lines)"
compare default --ignore_error=,ENOSPC
[[ ! -s bb-default.lines ]] || fail "the default printed: $(cat bb-default.lines)"
# The summary still counts them.
grep -q "4 failed requests" bb-dump0.out || fail "no summary: $(cat bb-dump0.out)"

compare fatal --error_dump=1
[[ $(wc -l <bb-fatal.lines) == 1 ]] || fail "fatal: want 1 line: $(cat bb-fatal.out)"

# Bad values name the option.
if "$BB" --name=a --ioengine=null --size=1m --error_dump=yes >out 2>err; then
  fail "error_dump=yes accepted"
fi
grep -q "error_dump" err || fail "error_dump=yes: $(cat err)"
echo PASS

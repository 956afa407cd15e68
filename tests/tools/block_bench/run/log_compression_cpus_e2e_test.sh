#!/usr/bin/env bash
# fio's log_compression_cpus on the real binary, through strace: block-bench
# compresses log_store_compressed=1 logs once, at the end, on its main
# thread, and pins that thread to the listed CPUs while it does:
#  * with log_store_compressed=1 and log_compression_cpus=0: one
#    sched_setaffinity to CPU 0 per compressed log file, each followed by one
#    giving the thread back its previous CPUs; the files read back with
#    fio --inflate-log, one line per I/O;
#  * without log_store_compressed (nothing compressed): no pin;
#  * a CPU the machine does not have is refused at parse time naming the
#    option, as fio ("CPU N too large").
# fio and strace are required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
JOB=(--name=z --ioengine=null --rw=read --bs=4k --number_ios=100 --write_lat_log=z)
# traced NAME ARGS...: block-bench under strace (sched_setaffinity only);
traced() {
  local name=$1; shift
  under_strace "$name.trace" sched_setaffinity "$BB" "${JOB[@]}" "$@" \
    >"$name.out" 2>&1 || fail "block-bench $*: $(cat "$name.out")"
}

traced pin --log_store_compressed=1 --log_compression_cpus=0
# The pins to CPU 0 alone ([0]), and the restores (any other set).
pins=$(grep -cE 'sched_setaffinity\([0-9]+, [0-9]+, \[0\]\) += 0$' pin.trace || true)
calls=$(grep -cE 'sched_setaffinity\(.*\) += 0$' pin.trace || true)
# lat, clat and slat: three compressed files.
[[ $pins == 3 && $calls == 6 ]] || fail "want 3 pins to [0] and 3 restores: $(cat pin.trace)"
for k in lat clat; do
  [[ -s z_$k.1.log.fz ]] || fail "no z_$k.1.log.fz: $(ls)"
  n=$(fio --inflate-log=z_$k.1.log.fz | grep -c .)
  [[ $n == 100 ]] || fail "z_$k.1.log.fz: $n lines for 100 I/Os"
done

rm -f z_*
traced plain --log_compression_cpus=0
! grep -qE 'sched_setaffinity\(.*\) += 0$' plain.trace || fail "pinned with nothing to compress: $(cat plain.trace)"
[[ -s z_lat.1.log ]] || fail "no plain log: $(ls)"

big=$(($(getconf _NPROCESSORS_CONF) + 3))
if "$BB" "${JOB[@]}" --log_compression_cpus=$big >out 2>err; then fail "CPU $big accepted"; fi
grep -q "option '--log_compression_cpus': CPU $big too large" err || fail "CPU $big: $(cat err)"
echo PASS

#!/bin/bash
# The report's CPU line counts the job's measured I/O, as fio's (its
# ru_start is taken where the I/O loop begins, and again when the ramp
# ends): laying out a 128 MiB file before 16 reads is not in usr/sys/ctx,
# nor is a ramp.  Before, block-bench counted the layout and divided
# it by the 16 reads' millisecond: thousands of percent.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/cpuwin.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

for t in fio bb; do
  if [ $t = fio ]; then bin=fio; else bin=$BB; fi
  rm -f big
  "$bin" --name=x --filename=big --size=128m --rw=read --bs=4k --number_ios=16 \
    --output-format=json >$t.json 2>$t.err || fail "$t: $(cat $t.err)"
  python3 - $t.json <<'PY' || fail "$t: CPU over the set-up"
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
cpu = j["usr_cpu"] + j["sys_cpu"]
print("%s: 16 reads after a 128 MiB layout: usr+sys %.1f %%, ctx %d, runtime %d ms"
      % (sys.argv[1], cpu, j["ctx"], j["read"]["runtime"]))
# One thread over the I/O: at most 100 % (300: slack for rusage's tick).
assert cpu <= 300, cpu
PY
done
# With a ramp, fio counts from the ramp's end (reset_all_stats): a busy
# null job is about one CPU over its runtime, not two (ramp + runtime).
for t in fio bb; do
  if [ $t = fio ]; then bin=fio; else bin=$BB; fi
  "$bin" --name=r --ioengine=null --size=1g --ramp_time=1 --runtime=1 --time_based \
    --output-format=json >ramp.$t.json 2>ramp.$t.err || fail "$t ramp: $(cat ramp.$t.err)"
  python3 - ramp.$t.json <<'PY' || fail "$t: CPU over the ramp"
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
cpu = j["usr_cpu"] + j["sys_cpu"]
print("%s: 1 s null job after a 1 s ramp: usr+sys %.1f %%" % (sys.argv[1], cpu))
assert cpu <= 150, cpu
PY
done
echo PASS

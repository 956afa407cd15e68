#!/usr/bin/env bash
# I/O priorities end to end, against fio 3.33 on the same jobs (fio is
# required: without it the test skips, or fails under BLK_TEST_NO_SKIP):
#  * cmdprio_percentage on libaio and io_uring: JSON read/write "prios" as
#    fio's (an entry per priority with samples, the job's own first, keys
#    prioclass, prio and clat_ns -- lat_ns with lat_percentiles -- with the
#    same keys inside), the priorities' counts add up to the direction's
#    I/Os and the cmdprio share is near the percentage; the text report's
#    "clat prio C/L" lines as fio's;
#  * cmdprio_bssplit (class/level per block size): every 4k I/O under 2/2,
#    every 8k one under the job's own priority;
#  * without cmdprio (prio/prioclass alone, psync) no "prios", as fio.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
head -c 8M /dev/zero > data.img

both() {  # both NAME ARGS...: the job through fio and block-bench, JSON
  local name=$1; shift
  fio --name=j --filename=data.img "$@" --output-format=json --output="fio_$name.json" >/dev/null 2>&1 ||
    fail "fio $name: $(cat "fio_$name.json")"
  "$BB" --name=j --filename=data.img "$@" --output-format=json --output="bb_$name.json" 2>bb_$name.err ||
    fail "block-bench $name: $(cat bb_$name.err)"
}

compare() {  # compare NAME PERCENT LATKEY
  python3 - "$@" <<'PY' || fail "$1: prios"
import json, sys
name, pct, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fio = json.load(open("fio_%s.json" % name))["jobs"][0]
bb = json.load(open("bb_%s.json" % name))["jobs"][0]
for d in ("read", "write"):
    f, b = fio[d]["prios"], bb[d]["prios"]
    assert [(e["prioclass"], e["prio"]) for e in f] == [(e["prioclass"], e["prio"]) for e in b], (d, f, b)
    for ef, eb in zip(f, b):
        assert sorted(ef) == sorted(eb) == sorted(["prioclass", "prio", key]), (sorted(ef), sorted(eb))
        assert sorted(ef[key]) == sorted(eb[key]), (sorted(ef[key]), sorted(eb[key]))
        assert sorted(ef[key]["percentile"]) == sorted(eb[key]["percentile"])
    n = bb[d]["total_ios"]
    assert sum(e[key]["N"] for e in b) == n, (d, [e[key]["N"] for e in b], n)
    share = 100.0 * b[1][key]["N"] / n
    assert abs(share - pct) < 12, (d, share, pct)
    print("%s %s: %d I/Os, %.1f%% at %d/%d (fio %.1f%%)" % (name, d, n, share, b[1]["prioclass"], b[1]["prio"],
          100.0 * f[1][key]["N"] / fio[d]["total_ios"]))
PY
}

job=(--rw=randrw --bs=4k --direct=1 --iodepth=4 --size=8M --io_size=12M)
# Best-effort classes only: the real-time class needs CAP_SYS_ADMIN, which
# Bazel's sandbox takes away (fio and block-bench then fail with EPERM).
both aio --ioengine=libaio "${job[@]}" --cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=3
compare aio 30 clat_ns
both uring --ioengine=io_uring "${job[@]}" --cmdprio_percentage=60,20 --cmdprio_class=2 --cmdprio=7 --lat_percentiles=1
python3 - <<'PY' || fail "uring: per-direction percentages"
import json
b = json.load(open("bb_uring.json"))["jobs"][0]
for d, pct in (("read", 60), ("write", 20)):
    p = b[d]["prios"]
    assert [(e["prioclass"], e["prio"]) for e in p] == [(0, 0), (2, 7)], p
    share = 100.0 * p[1]["lat_ns"]["N"] / b[d]["total_ios"]
    assert abs(share - pct) < 12, (d, share)
PY
python3 - <<'PY' || fail "uring: structure"
import json
f = json.load(open("fio_uring.json"))["jobs"][0]["read"]["prios"]
b = json.load(open("bb_uring.json"))["jobs"][0]["read"]["prios"]
assert [sorted(e) for e in f] == [sorted(e) for e in b], (f, b)
PY

# cmdprio_bssplit: 4k always at 2/2, 8k never.
both split --ioengine=libaio --rw=randwrite --bssplit=4k/50:8k/50 --direct=1 --iodepth=4 --size=8M \
  --io_size=8M --cmdprio_bssplit=4k/100/2/2:8k/0 --write_lat_log=split --log_offset=1
python3 - <<'PY' || fail "bssplit"
import json
f = json.load(open("fio_split.json"))["jobs"][0]["write"]["prios"]
b = json.load(open("bb_split.json"))["jobs"][0]["write"]["prios"]
assert [(e["prioclass"], e["prio"]) for e in f] == [(e["prioclass"], e["prio"]) for e in b] == [(0, 0), (2, 2)], (f, b)
sizes = [int(l.split(", ")[3]) for l in open("split_clat.1.log")]
n4k = sum(1 for s in sizes if s == 4096)
assert b[1]["clat_ns"]["N"] == n4k and b[0]["clat_ns"]["N"] == len(sizes) - n4k, (b, n4k, len(sizes))
print("bssplit: %d of %d writes (the 4k ones) at 2/2" % (n4k, len(sizes)))
PY

# The logs' priority column (log_prio=1: the ioprio value) as fio's: the
# job's own 0x4003 (prio=3) and cmdprio's 0x4006, about half each.
both logs --ioengine=libaio --rw=randread --bs=4k --size=2M --direct=1 --prio=3 --cmdprio_percentage=50 \
  --cmdprio_class=2 --cmdprio=6 --write_lat_log=LOG --log_prio=1
mv LOG_clat.1.log bb_clat.log  # the last run's (block-bench's); fio's is gone: run it again
fio --name=j --filename=data.img --ioengine=libaio --rw=randread --bs=4k --size=2M --direct=1 --prio=3 \
  --cmdprio_percentage=50 --cmdprio_class=2 --cmdprio=6 --write_lat_log=LOG --log_prio=1 >/dev/null 2>&1 || fail "fio logs"
python3 - <<'PY' || fail "log priorities"
from collections import Counter
def prios(path): return Counter(l.split(", ")[4].strip() for l in open(path))
b, f = prios("bb_clat.log"), prios("LOG_clat.1.log")
assert sorted(b) == sorted(f) == ["0x4003", "0x4006"], (b, f)
assert 0.3 < b["0x4006"] / sum(b.values()) < 0.7, b
print("log priorities:", dict(b), "fio:", dict(f))
PY

# Text: the per-priority lines as fio's.
fio --name=j --filename=data.img --ioengine=libaio "${job[@]}" --cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=3 > fio.txt 2>&1
"$BB" --name=j --filename=data.img --ioengine=libaio "${job[@]}" --cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=3 > bb.txt 2>&1
shape() { grep -E 'prio [0-9]/[0-9]' "$1" | sed -E 's/\(([a-z]+sec)\).*/(UNIT)/; s/\([0-9.]+% of IOs\)/(P% of IOs)/; s/^ +//'; }
[[ "$(shape bb.txt)" == "$(shape fio.txt)" ]] || fail "text lines: $(shape bb.txt) vs fio's $(shape fio.txt)"
[[ $(shape bb.txt | wc -l) -eq 8 ]] || fail "expected 8 prio lines: $(shape bb.txt)"

# prio/prioclass alone: the job runs at that priority, no split (fio neither).
both own --ioengine=psync --rw=randread --bs=4k --size=8M --io_size=1M --prio=4 --prioclass=2
python3 - <<'PY' || fail "own priority"
import json
for t in ("fio", "bb"):
    j = json.load(open("%s_own.json" % t))["jobs"][0]
    assert j["error"] == 0 and "prios" not in j["read"], (t, j["read"].keys())
    assert j["job options"]["prio"] == "4" and j["job options"]["prioclass"] == "2", j["job options"]
PY
echo PASS

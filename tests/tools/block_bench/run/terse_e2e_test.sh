#!/usr/bin/env bash
# fio's terse lines (--minimal, --output-format=terse, --terse-version),
# end to end: for versions 3, 4 and 5 block-bench's line has fio 3.33's
# layout field by field (the same number of fields, each of the same shape:
# integer, "%f", "%f%", "P%=us", "%3.1f%"...) on the same job; its values
# are those of its own JSON report; continue_on_error, description,
# group_reporting and --append-terse as fio.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio

JOB=(--name=t --ioengine=null --size=16m --rw=randrw --bs=4k --randseed=7)
for v in 3 4 5; do
  fio "${JOB[@]}" --minimal --terse-version=$v > "$T/fio.$v" 2>/dev/null || fail "fio v$v"
  "$BB" "${JOB[@]}" --minimal --terse-version=$v > "$T/bb.$v" 2>"$T/bb.$v.err" || fail "block-bench v$v: $(cat "$T/bb.$v.err")"
  python3 - "$T/fio.$v" "$T/bb.$v" "$v" <<'PY' || fail "terse v$v layout"
import re, sys
fio = open(sys.argv[1]).read().splitlines()
bb = open(sys.argv[2]).read().splitlines()
v = sys.argv[3]
assert len(fio) == 1 and len(bb) == 1, (fio, bb)
f, b = fio[0].split(";"), bb[0].split(";")
assert len(f) == len(b), "fio has %d fields, block-bench %d" % (len(f), len(b))
def shape(x):
    for name, rx in (("int", r"-?\d+"), ("f6", r"-?\d+\.\d{6}"), ("f6%", r"\d+\.\d{6}%"),
                     ("f1%", r"\d+\.\d%"), ("f2%", r"\d+\.\d{2}%"), ("pct", r"\d+(\.\d{6})?%=\d+")):
        if re.fullmatch(rx, x): return name
    return "text"
for i, (x, y) in enumerate(zip(f, b)):
    if i in (1, 2): continue  # fio version and job name: text
    assert shape(x) == shape(y), "field %d: fio %r (%s), block-bench %r (%s)" % (i + 1, x, shape(x), y, shape(y))
assert b[0] == v and b[2] == "t" and b[3] == "0" and b[4] == "0", b[:5]
# The version field starts "fio-" as fio's (its t/ scripts pick terse lines
# by "3;fio-"): the release whose layout this is, then block-bench's.
assert f[1].startswith("fio-3.33") and b[1] == "fio-3.33-block-bench-0.1", (f[1], b[1])
# randrw over 16 MiB: read KiB + write KiB = 16384 in both tools.
nd = 41 if v != "5" else 47  # fields per direction
for fields in (f, b):
    assert int(fields[5]) + int(fields[5 + nd]) == 16384, (fields[5], fields[5 + nd])
print("v%s: %d fields, shapes as fio's" % (v, len(b)))
PY
done

# The values are those of block-bench's JSON report of the same run.
"$BB" "${JOB[@]}" --output-format=json,terse --output="$T/both" 2>/dev/null || fail "json,terse run"
python3 - "$T/both" <<'PY' || fail "terse values against JSON"
import json, sys
text = open(sys.argv[1]).read()
start = text.index("{")  # fio's order: the terse lines, then the JSON document
doc, end = json.JSONDecoder().raw_decode(text[start:])
assert not text[start + end:].strip(), "after the JSON: " + text[start + end:]
lines = [l for l in text[:start].splitlines() if l.strip()]
assert len(lines) == 1, lines
f = lines[0].split(";")
j = doc["jobs"][0]
r, w = j["read"], j["write"]
assert int(f[5]) == r["io_bytes"] >> 10, (f[5], r["io_bytes"])
assert int(f[8]) == r["runtime"], (f[8], r["runtime"])
assert int(f[7]) == 1000 * r["total_ios"] // r["runtime"], (f[7], r["total_ios"])
assert int(f[13]) == r["clat_ns"]["min"] // 1000 and int(f[14]) == r["clat_ns"]["max"] // 1000, f[13:15]
assert abs(float(f[15]) - r["clat_ns"]["mean"] / 1000) < 1e-3, (f[15], r["clat_ns"]["mean"])
p50 = [x for x in f[17:37] if x.startswith("50.000000%=")]
assert p50 and int(p50[0].split("=")[1]) == r["clat_ns"]["percentile"]["50.000000"] // 1000, p50
assert int(f[46]) == w["io_bytes"] >> 10, (f[46], w["io_bytes"])
assert f[87] == "%f%%" % j["usr_cpu"], (f[87], j["usr_cpu"])
# The latency buckets (us then ms, the last 22 fields) cover every I/O, as
# fio's do (its nanosecond buckets fold into "<= 2 us").
lat = sum(float(x.rstrip("%")) for x in f[-22:])
assert 99.0 <= lat <= 101.0, (lat, f[-22:])
print("values agree with the JSON report")
PY

# continue_on_error adds total errors and the first errno; a description
# comes last; group_reporting gives one line for the group.
"$BB" --name=e --ioengine=null --size=1m --rw=read --continue_on_error=all \
  --description="two words" --minimal > "$T/e.txt" 2>/dev/null || fail "continue_on_error run"
python3 - "$T/e.txt" <<'PY' || fail "continue_on_error / description fields"
import sys
f = open(sys.argv[1]).read().strip().split(";")
assert len(f) == 121 + 3, len(f)
assert f[-3:] == ["0", "0", "two words"], f[-3:]
PY
"$BB" --name=g --ioengine=null --size=1m --rw=read --numjobs=3 --group_reporting --minimal \
  > "$T/g.txt" 2>/dev/null || fail "group_reporting run"
[ "$(wc -l < "$T/g.txt")" = 1 ] || fail "group_reporting: $(cat "$T/g.txt")"
[ "$(cut -d';' -f6 "$T/g.txt")" = 3072 ] || fail "group total KiB: $(cut -d';' -f6 "$T/g.txt")"
"$BB" --name=a --ioengine=null --size=1m --rw=read --append-terse > "$T/a.txt" 2>/dev/null || fail "--append-terse"
grep -q "Run status group 0" "$T/a.txt" || fail "--append-terse lost the text report: $(cat "$T/a.txt")"
# fio's order: the terse line before the text report, right after "Starting".
terse=$(grep -A1 '^Starting 1 thread$' "$T/a.txt" | tail -1)
[[ "$terse" =~ ^3\;.*\;a\;0\;0\;1024\; ]] || fail "--append-terse line: $(cat "$T/a.txt")"
echo "PASS"

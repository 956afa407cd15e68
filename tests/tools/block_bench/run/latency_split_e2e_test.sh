#!/usr/bin/env bash
# slat / clat / lat as fio splits them, end to end on the real binary:
#  * libaio and io_uring on an O_DIRECT file: slat, clat and lat each count
#    every I/O, and per I/O slat + clat = lat (checked line by line in the
#    write_lat_log files, and as sums in the JSON); the text report prints
#    slat before clat as fio does;
#  * the null driver hands nothing over: no slat (N=0, an empty _slat log,
#    no slat line), lat = clat;
#  * without log_avg_msec the bw and iops logs are per I/O as fio's (bytes
#    over the I/O's clat in bytes/ms; 1);
#  * the log files have fio 3.33's columns (fio run on the same job), with
#    and without log_offset, log_prio;
#  * the reductions (gtod_reduce, disable_lat/clat/slat/bw_measurement)
#    drop the same statistics as fio's on the same job: JSON N and sample
#    counts zero or not, percentiles present or not, text lines;
#  * fio's fio_generate_plots (gnuplot) draws all five kinds of log.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
head -c 16M /dev/urandom > data.img

check() {  # check ENGINE PREFIX EXPECT_SLAT(0|1): JSON vs logs
  python3 - "$@" <<'PY' || fail "$1: split"
import json, sys
engine, prefix, want_slat = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
r = json.load(open(prefix + ".json"))["jobs"][0]["read"]
n = r["total_ios"]
assert n > 100, n
s, c, l = r["slat_ns"], r["clat_ns"], r["lat_ns"]
assert c["N"] == n and l["N"] == n, (c["N"], l["N"], n)
def rows(kind):
    return [[int(x) for x in line.split(", ")] for line in open("%s_%s.1.log" % (prefix, kind))]
lat, clat, slat = rows("lat"), rows("clat"), rows("slat")
assert len(lat) == n and len(clat) == n, (len(lat), len(clat), n)
if want_slat:
    assert s["N"] == n, (s["N"], n)
    assert len(slat) == n, (len(slat), n)
    # Per I/O: the same request on the same line of the three logs.
    for a, b, t in zip(slat, clat, lat):
        assert a[0] == b[0] == t[0] and a[2:] == b[2:] == t[2:], (a, b, t)
        assert a[1] + b[1] == t[1], (a, b, t)
    # The JSON's sums agree (mean * N, to the rounding of the means).
    tot = lambda h: h["mean"] * h["N"]
    assert abs(tot(s) + tot(c) - tot(l)) <= 1e-6 * tot(l) + 1, (tot(s), tot(c), tot(l))
    assert 0 < s["min"] and s["max"] <= l["max"] and c["max"] <= l["max"]
    assert sum(x[1] for x in slat) == round(tot(s)) or abs(sum(x[1] for x in slat) - tot(s)) < 1e-6 * tot(s) + 1
else:
    assert s["N"] == 0 and not slat, (s["N"], len(slat))
    assert (c["min"], c["max"], c["mean"]) == (l["min"], l["max"], l["mean"]), (c, l)
    assert clat == lat
print("%s: %d I/Os, slat %s, clat %.0f ns, lat %.0f ns" % (engine, n, "%.0f ns" % s["mean"] if want_slat else "none", c["mean"], l["mean"]))
PY
}

for engine in libaio io_uring; do
  "$BB" --name=j --filename=data.img --ioengine=$engine --direct=1 --rw=randread --bs=4k --iodepth=8 \
    --runtime=1 --time_based --write_lat_log=$engine --write_bw_log=$engine --write_iops_log=$engine \
    --output-format=json --output=$engine.json || fail "$engine run"
  check $engine $engine 1
done
python3 - <<'PY' || fail "per-I/O bw/iops logs"
rows = lambda k: [[int(x) for x in l.split(", ")] for l in open("libaio_%s.1.log" % k)]
clat, bw, iops = rows("clat"), rows("bw"), rows("iops")
assert len(bw) == len(iops) == len(clat), (len(bw), len(iops), len(clat))
for c, b, i in zip(clat, bw, iops):
    assert b[0] == c[0] and b[2:] == c[2:] and i[2:] == c[2:], (c, b, i)
    assert b[1] == 4096 * 10**6 // c[1] and i[1] == 1, (c, b, i)
print("per-I/O bw and iops logs: %d lines" % len(bw))
PY
"$BB" --name=j --ioengine=null --size=16m --rw=randread --bs=4k --iodepth=4 --runtime=1 --time_based \
  --write_lat_log=null --output-format=json --output=null.json || fail "null run"
check null null 0

# Text: slat, clat, lat in fio's order; none for null.
"$BB" --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
  --runtime=1 --time_based --slat_percentiles=1 --lat_percentiles=1 > aio.txt || fail "text run"
grep -E '^ +(slat|clat| lat) \(.*min=|percentiles' aio.txt | sed -E 's/ \(.*//; s/^ +//' | tr '\n' '|' > order.txt
[[ "$(cat order.txt)" == "slat|clat|lat|slat percentiles|clat percentiles|lat percentiles|" ]] \
  || fail "text order: $(cat order.txt)"
"$BB" --name=j --ioengine=null --size=16m --rw=randread --runtime=1 --time_based > null.txt
grep -q 'slat' null.txt && fail "null prints a slat line: $(grep slat null.txt)"
grep -q '    clat (' null.txt || fail "null: no clat line"

# Reductions: what fio keeps and drops, block-bench the same.
for flags in "--gtod_reduce=1" "--disable_clat=1" "--disable_slat=1" "--disable_lat=1" \
  "--disable_bw_measurement=1" "--gtod_reduce=1 --clat_percentiles=1"; do
  # shellcheck disable=SC2086
  fio --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
    --runtime=1 --time_based $flags --output-format=json --output=fio.json || fail "fio $flags"
  # shellcheck disable=SC2086
  "$BB" --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
    --runtime=1 --time_based $flags --output-format=json --output=bb.json || fail "block-bench $flags"
  python3 - "$flags" <<'PY' || fail "reductions differ from fio's with $flags"
import json, sys
def shape(path):
    r = json.load(open(path))["jobs"][0]["read"]
    out = {k: (r[k]["N"] > 0, "percentile" in r[k]) for k in ("slat_ns", "clat_ns", "lat_ns")}
    out["bw_samples"] = r["bw_samples"] > 0
    out["iops_samples"] = r["iops_samples"] > 0
    out["ios"] = r["total_ios"] > 0
    return out
f, b = shape("fio.json"), shape("bb.json")
assert f == b, "fio %s, block-bench %s" % (f, b)
print("%s: %s" % (sys.argv[1], b))
PY
done
"$BB" --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
  --runtime=1 --time_based --gtod_reduce=1 > reduced.txt || fail "gtod_reduce text"
grep -qE '^ +(slat|clat| lat) \(|percentiles' reduced.txt && fail "gtod_reduce text has latencies: $(cat reduced.txt)"
grep -qE '^ +bw \(.*samples=' reduced.txt || fail "gtod_reduce text has no bw line (fio keeps it): $(cat reduced.txt)"
grep -q 'IOPS=' reduced.txt || fail "gtod_reduce text has no IOPS: $(cat reduced.txt)"

# Columns: fio's own log lines on the same job, then block-bench's.
shape() {  # one line's shape: numbers as N, hex as H
  sed -E 's/0x[0-9a-f]+/H/g; s/[0-9]+/N/g' "$1" | sort -u
}
for flags in "--log_avg_msec=100" "--log_avg_msec=100 --log_offset=1" "--log_prio=1" \
  "--log_offset=1 --log_prio=1"; do
  rm -f fio_*.log bb_*.log
  # shellcheck disable=SC2086
  fio --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
    --runtime=1 --time_based --write_lat_log=fio --write_bw_log=fio --write_iops_log=fio \
    $flags --output=/dev/null || fail "fio $flags"
  # shellcheck disable=SC2086
  "$BB" --name=j --filename=data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
    --runtime=1 --time_based --write_lat_log=bb --write_bw_log=bb --write_iops_log=bb \
    $flags --output=/dev/null || fail "block-bench $flags"
  for kind in lat clat slat bw iops; do
    [[ "$(shape fio_$kind.1.log)" == "$(shape bb_$kind.1.log)" ]] ||
      fail "$kind log with '$flags': fio's lines look like $(shape fio_$kind.1.log), block-bench's $(shape bb_$kind.1.log)"
  done
done
echo "log columns as fio 3.33's"

# fio_generate_plots reads the five logs (it stops at a kind it cannot find).
command -v gnuplot >/dev/null || fail "gnuplot is missing (scripts/packages.txt installs gnuplot-nox)"
mkdir plots && cd plots
"$BB" --name=j --filename=../data.img --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
  --runtime=2 --time_based --write_lat_log=p --write_bw_log=p --write_iops_log=p --log_avg_msec=100 \
  --output=/dev/null || fail "plot run"
fio_generate_plots bb > gen.txt 2>&1 || fail "fio_generate_plots: $(tail -5 gen.txt)"
for kind in lat clat slat bw iops; do
  python3 -c "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.getElementsByTagName('path')" \
    "bb-$kind.svg" || fail "fio_generate_plots drew no $kind plot"
done
echo "PASS"

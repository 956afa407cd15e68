#!/usr/bin/env bash
# json+ latency bins as fio 3.33 writes them: for the same job (libaio with
# O_DIRECT on a file, so that slat is measured by both tools), every latency
# object of block-bench's json+ (read/write/trim slat_ns, clat_ns, lat_ns and
# sync lat_ns) has "percentile" and "bins" exactly where fio's has them, for
# the default percentile options and for lat_percentiles, slat_percentiles
# and clat_percentiles=0; the bins of each object add up to its N.  Then
# fio's own fio_jsonplus_clat2csv (where packaged) reads block-bench's json+
# and fills the slat, clat and lat columns, and validates them (--validate).
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio

F="$T/jsonplus.dat"
truncate -s 16m "$F"
ENGINE=(--ioengine=libaio --direct=1)
if ! dd if=/dev/zero of="$F" bs=4k count=1 oflag=direct conv=notrunc status=none 2>/dev/null; then
  # No O_DIRECT here (tmpfs): buffered psync, where neither tool has slat.
  echo "NOTE: no O_DIRECT in $T: psync, slat not measured by either tool"
  ENGINE=(--ioengine=psync)
fi
JOB=(--name=j --filename="$F" "${ENGINE[@]}" --rw=randrw --bs=4k --size=4m --iodepth=4
     --fsync=16 --randseed=3)

# (section, object, N > 0, has percentile, has bins) for every latency object.
shape() {
  python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
doc = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
j = doc["jobs"][0]
for d in ("read", "write", "trim", "sync"):
    for k in ("slat_ns", "clat_ns", "lat_ns"):
        o = j[d].get(k)
        if o is None:
            continue
        if "bins" in o:
            assert sum(o["bins"].values()) == o["N"], (d, k, sum(o["bins"].values()), o["N"])
        print(d, k, "N>0" if o["N"] else "N=0", "percentile" in o, "bins" in o)
PY
}

for opts in "" "--lat_percentiles=1" "--lat_percentiles=1 --slat_percentiles=1" \
            "--clat_percentiles=0" "--clat_percentiles=0 --lat_percentiles=1" \
            "--clat_percentiles=0 --lat_percentiles=0"; do
  # shellcheck disable=SC2086
  fio "${JOB[@]}" $opts --output-format=json+ >"$T/fio.json" 2>"$T/fio.err" ||
    fail "fio $opts: $(cat "$T/fio.err")"
  # shellcheck disable=SC2086
  "$BB" "${JOB[@]}" $opts --output-format=json+ >"$T/bb.json" 2>"$T/bb.err" ||
    fail "block-bench $opts: $(cat "$T/bb.err")"
  shape "$T/fio.json" >"$T/fio.shape" || fail "fio's json+ ($opts)"
  shape "$T/bb.json" >"$T/bb.shape" || fail "block-bench's json+ ($opts)"
  diff "$T/fio.shape" "$T/bb.shape" >"$T/diff" ||
    fail "json+ latency objects differ from fio's with '$opts' (< fio, > block-bench):
$(cat "$T/diff")"
  echo "'$opts': $(grep -c True "$T/bb.shape") percentile/bins keys, as fio's"
done

# fio's converter on block-bench's json+: the lat columns carry the bins.
if ! command -v fio_jsonplus_clat2csv >/dev/null || ! python3 -c 'import six' 2>/dev/null; then
  [[ -n "${BLK_TEST_NO_SKIP:-}" ]] && fail "fio_jsonplus_clat2csv (or python3-six) is missing"
  echo "NOTE: fio_jsonplus_clat2csv not run (not installed, or python3-six missing)"
  echo PASS
  exit 0
fi
"$BB" "${JOB[@]}" --lat_percentiles=1 --slat_percentiles=1 --output-format=json+ \
  >"$T/bb.json" 2>"$T/bb.err" || fail "block-bench: $(cat "$T/bb.err")"
(cd "$T" && fio_jsonplus_clat2csv bb.json bb.csv >"$T/csv.out" 2>&1 &&
  fio_jsonplus_clat2csv bb.json bb.csv --validate >>"$T/csv.out" 2>&1) ||
  fail "fio_jsonplus_clat2csv: $(cat "$T/csv.out")"
grep -q "validated" "$T/csv.out" || fail "not validated: $(cat "$T/csv.out")"
python3 - "$T/bb_job0.csv" "$T/bb.json" <<'PY' || fail "CSV columns"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1]), skipinitialspace=True))
head, rows = [h.strip() for h in rows[0]], rows[1:]
j = json.load(open(sys.argv[2]))["jobs"][0]
for d in ("read", "write"):
    for k in ("slat_ns", "clat_ns", "lat_ns"):
        if j[d][k]["N"] == 0:
            continue
        col = head.index("%s_%s_count" % (d, k))
        n = sum(int(r[col]) for r in rows if len(r) > col and r[col].strip())
        assert n == j[d][k]["N"], (d, k, n, j[d][k]["N"])
        print("%s %s: %d I/Os in the CSV" % (d, k, n))
PY
echo PASS

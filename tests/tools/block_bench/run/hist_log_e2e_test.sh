#!/usr/bin/env bash
# write_hist_log + log_hist_msec (+ log_hist_coarseness), end to end: fio's
# histogram-log layout (msec, direction, bs, then 1856 / 2^coarseness bins),
# one line per interval, the bins adding up to the job's I/O count, and
# fio's own reader (fiologparser_hist.py, from Debian's fio package, run by
# Debian's python3 with python3-pandas) reads it and counts the same I/Os.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

run() {  # run COARSENESS: the job's read total_ios
  rm -f h_clat_hist.1.log
  "$BB" --name=h --blockdev=driver=null,size=1G,latency-ns=20000 --rw=randread --bs=4k \
    --runtime=1 --time_based --write_hist_log=h --log_hist_msec=100 --log_hist_coarseness="$1" \
    --output-format=json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['jobs'][0]['read']['total_ios'])"
}
for c in 0 2; do
  ios=$(run $c) || fail "run with coarseness $c"
  [[ -f h_clat_hist.1.log ]] || fail "no h_clat_hist.1.log"
  python3 - "$ios" "$c" <<'PY' || fail "log layout (coarseness $c)"
import sys
ios, c = int(sys.argv[1]), int(sys.argv[2])
rows = [[int(x) for x in l.split(", ")] for l in open("h_clat_hist.1.log").read().splitlines()]
assert 5 <= len(rows) <= 12, len(rows)
for r in rows:
    assert len(r) == 3 + 1856 // (1 << c), len(r)
    assert r[1] == 0 and r[2] == 4096, r[:3]
times = [r[0] for r in rows]
assert times == sorted(times) and len(set(times)) == len(times), times
assert sum(sum(r[3:]) for r in rows) == ios, (sum(sum(r[3:]) for r in rows), ios)
print("coarseness %d: %d lines, %d I/Os" % (c, len(rows), ios))
PY
done

"$BB" --name=h --ioengine=null --size=1m --write_hist_log=h > "$T/e.txt" 2>&1 && fail "no log_hist_msec accepted"
grep -q "write_hist_log needs log_hist_msec" "$T/e.txt" || fail "message: $(cat "$T/e.txt")"

PARSER=/usr/share/doc/fio/fiologparser_hist.py.gz
if [[ ! -f "$PARSER" ]] || ! /usr/bin/python3 -c "import pandas" 2>/dev/null; then
  [[ -n "${BLK_TEST_NO_SKIP:-}" ]] && fail "fio's fiologparser_hist.py or python3-pandas is missing"
  echo "SKIPPED: fio's fiologparser_hist.py or python3-pandas is missing"; exit 0
fi
ios=$(run 0)
zcat "$PARSER" > parser.py
/usr/bin/python3 parser.py --noweight -i 100000 h_clat_hist.1.log > parsed.txt 2>&1 || fail "fiologparser_hist.py: $(cat parsed.txt)"
samples=$(sed -n 2p parsed.txt | cut -d, -f2 | tr -d ' ')
[[ "$samples" == "$ios" ]] || fail "fio's parser counts $samples I/Os, the job $ios: $(cat parsed.txt)"
echo "PASS: fiologparser_hist.py read $samples I/Os"

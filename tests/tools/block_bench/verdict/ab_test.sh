#!/bin/bash
# block-bench compare and ab, end to end on the binary: verdicts and exit
# codes on the null driver, fio's JSON and fio as a side, failing, crashing
# and hanging runs, usage errors.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/ab.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# run WANT_RC args...: runs block-bench, output in $T/out, $T/err.
run() {
  local want=$1; shift
  "$BB" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "block-bench $* exited $rc (want $want): $(tail -5 "$T/err") $(tail -15 "$T/out")"
}
has() { grep -q -- "$1" "$2" || fail "no '$1' in $2: $(cat "$2")"; }
NULL="driver=null,size=64m,latency-ns"
JOB=(--name=j --rw=randread --bs=4k --size=4m --iodepth=1)

# A/A: the same target on both sides is never "worse".
"$BB" ab --a="$NULL=100000" --b="$NULL=100000" --rounds=6 --max-rounds=12 --seed=3 "${JOB[@]}" \
  >"$T/aa" 2>"$T/aa.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 125 ] || fail "A/A exited $rc: $(cat "$T/aa" "$T/aa.err")"
has "verdict: " "$T/aa"
has "clat p99" "$T/aa"
grep -q "verdict: worse" "$T/aa" && fail "A/A said worse: $(cat "$T/aa")"
grep -q "problem:\|run failed" "$T/aa" && fail "A/A: $(cat "$T/aa")"
echo "ok: A/A -> exit $rc ($(grep 'verdict:' "$T/aa"))"

# Issue #28: with no metric named, ab sees a 30 % slower device (latency-ns
# 20000 vs 26000, QD1) as worse, and the same device never as worse, within
# its default 30 rounds.  3 trials each (tools/bench/ab_trials.py runs 20).
# Before, the default p99 (the host's wake-up jitter at 20 us) answered
# unknown.
for t in 1 2 3; do
  "$BB" ab --a="$NULL=20000" --b="$NULL=26000" --seed=$t "${JOB[@]}" >"$T/ab30" 2>"$T/ab30.err"
  rc=$?
  [ $rc -eq 1 ] || fail "20000 vs 26000 trial $t exited $rc (want 1, worse): $(cat "$T/ab30" "$T/ab30.err")"
  has "note: deciding on \|note: every latency metric" "$T/ab30"
  has "chosen by run-to-run spread" "$T/ab30"
  "$BB" ab --a="$NULL=20000" --b="$NULL=20000" --seed=$t "${JOB[@]}" >"$T/aa30" 2>"$T/aa30.err"
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 125 ] || fail "20000 vs 20000 trial $t exited $rc: $(cat "$T/aa30" "$T/aa30.err")"
  echo "ok: trial $t: 20000 vs 26000 worse; 20000 vs 20000 $(grep 'verdict:' "$T/aa30")"
done

# A/B with latency-ns raised by 50 us, decided on the median latency: worse,
# exit 1; JSON output; --keep.  (On a 2-core VM the p99 of a timer-driven
# null device is the host's wake-up jitter, 1.3-4.5 ms run to run for a
# 1 ms latency-ns, so a 20 % latency-ns change does not move it reliably;
# docs/regressions.md.)
run 1 ab --a="$NULL=100000" --b="$NULL=150000" --metric=p50 --rounds=6 --max-rounds=20 --seed=4 \
  --keep="$T/keep" --output-format=json "${JOB[@]}"
python3 - "$T/out" <<'PY' || fail "A/B JSON: $(cat "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["comparison"]
assert c["verdict"] == "worse" and c["exit_code"] == 1, c["verdict"]
p50 = [r for r in c["rows"] if r["metric"] == "p50" and r["deciding"]][0]
# latency-ns adds 50 us; the loop's wake-up adds to both sides alike, so
# the absolute change is the robust check (a loaded ASan run measured a
# base median of 275 us: +7 % for 20 us, too close to the 5 % band).
delta = p50["new_median"] - p50["base_median"]
assert 30e3 < delta < 90e3, (delta, p50["base_median"], p50["new_median"])
assert abs(p50["change"] - delta / p50["base_median"]) < 1e-9, p50
assert p50["ci_low"] > 0, p50
assert j["ab"]["rounds"] >= 6 and len(j["ab"]["orders"]) == j["ab"]["rounds"]
assert set(j["ab"]["orders"]) <= {"ab", "ba"}
assert len(p50["base"]) == j["ab"]["rounds"]
PY
# The kept runs compare again to the same verdict.
ls "$T/keep/a"/*.json >/dev/null || fail "--keep wrote no results"
run 1 compare --metric=p50 "$T/keep/a" "$T/keep/b"
has "verdict: worse (exit 1)" "$T/out"
has "clat p50" "$T/out"
# Swapped: B is faster: better, exit 0.
run 0 compare --metric=p50 "$T/keep/b" "$T/keep/a"
has "verdict: better (exit 0)" "$T/out"
echo "ok: A/B +50 us latency-ns -> worse on p50, exit 1"

# The p99, named, against a change far above the jitter: a named metric
# decides even when its spread is above the limit (then with a note).
run 1 ab --a="$NULL=50000" --b="$NULL=8000000" --metric=p99 --rounds=5 --max-rounds=5 --warmup=0 \
  --name=j --rw=randread --bs=4k --size=256k --iodepth=4
has "clat p99 .* worse \*" "$T/out"
echo "ok: p99 far worse -> worse, exit 1"

# fio's JSON: fio runs as both sides (its null engine), and compare reads
# the kept documents.
if command -v fio >/dev/null; then
  run_fio() { "$BB" ab --a-bin="$(command -v fio)" --b-bin="$(command -v fio)" --rounds=5 \
    --max-rounds=5 --metric=iops --threshold=50% --keep="$T/fio" \
    --name=f --ioengine=null --rw=read --bs=4k --size=64m "$@"; }
  run_fio >"$T/out" 2>"$T/err"
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 125 ] || fail "fio A/A exited $rc: $(cat "$T/out" "$T/err")"
  has "IOPS" "$T/out"
  grep -q '"fio version"' "$T/fio/a/001.json" || fail "not fio's JSON"
  "$BB" compare --output-format=json "$T/fio/a" "$T/fio/b" >"$T/out"
  python3 -c "import json,sys; j=json.load(open('$T/out'))['comparison']; assert j['base_runs']==5 and len(j['rows'])>=4, j" ||
    fail "compare of fio JSON: $(cat "$T/out")"
  echo "ok: fio JSON and fio as a side"
elif [ "${BLK_TEST_NO_SKIP:-0}" = 1 ]; then
  fail "fio is not installed and BLK_TEST_NO_SKIP=1"
else
  echo "SKIPPED: fio is not installed (scripts/setup.sh installs it)"
fi

# A run that fails (an I/O error), crashes or hangs: unknown, exit 125,
# naming the side and what happened.
run 125 ab --a="$NULL=0" --b="driver=error-inject,file.driver=null,file.size=64m,event=read,errno=5" \
  --rounds=3 "${JOB[@]}"
has "side B (--blockdev=driver=error-inject" "$T/err"
has "exit status 1: .*Input/output error" "$T/err"
run 125 ab --a-cmd="$BB --output-format=json --eta=never \"\$@\"" --b-cmd='kill -SEGV $$' --rounds=3 "${JOB[@]}"
has "killed by signal 11 (Segmentation fault)" "$T/err"
start=$(date +%s)
run 125 ab --a-cmd='sleep 30' --b-cmd='sleep 30' --rounds=3 --timeout=1 "${JOB[@]}"
has "timed out after 1 s" "$T/err"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "--timeout=1 did not stop a run of 30 s"
run 125 ab --a-cmd='echo not json' --b="$NULL=0" --rounds=3 "${JOB[@]}"
has "no usable result: .*no JSON object in it" "$T/err"
echo "ok: failed, crashed, hung and garbled runs -> 125"

# Usage and input errors: 125 with a message, never 1 (which git bisect
# would read as "bad").
run 125 compare "$T/keep/a"
has "expected two arguments, BASE and NEW" "$T/err"
run 125 compare "$T/keep/a" "$T/nope.json"
has "NEW: $T/nope.json: No such file or directory" "$T/err"
run 125 compare --metric=p98 "$T/keep/a" "$T/keep/b"
has "unknown metric 'p98'" "$T/err"
run 125 compare --threshold=0 "$T/keep/a" "$T/keep/b"
has "threshold: expected a percentage above 0" "$T/err"
run 125 ab --a="$NULL=0" "${JOB[@]}"
has "side B is missing" "$T/err"
run 125 ab --a="$NULL=0" --b="$NULL=0"
has "no job arguments" "$T/err"
run 125 ab --a="$NULL=0" --b="$NULL=0" --rounds=1 "${JOB[@]}"
has "rounds: expected a whole number from 2" "$T/err"
run 0 compare --help
has "usage: block-bench compare" "$T/out"
run 0 ab --help
has "usage: block-bench ab" "$T/out"
echo "ok: usage errors -> 125"
echo PASS

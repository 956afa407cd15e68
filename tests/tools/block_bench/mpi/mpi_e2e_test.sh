#!/usr/bin/env bash
# block-bench as 3 MPI ranks on this host (mpirun --oversubscribe, shared
# memory transport), end to end:
#  * null driver, json+: "All clients" counts equal the sum of the ranks'
#    exactly, its bins the element-wise sum of theirs, and its percentiles
#    are those of the summed bins (recomputed here); "jobs" holds the same
#    merged unit; fio's fio_jsonplus_clat2csv reads the file;
#  * per-rank targets: filename=...${RANK}: each rank writes and verifies
#    (crc32c) its own file; per-rank logs (".rankR");
#  * a rank whose target cannot be opened: every rank stops before any I/O,
#    the one message names the rank and host, exit 1, no hang;
#  * ramp_time ends on every rank together (rank R starts 100 R + 50 ms late);
#  * SIGINT: to the ranks (exit 130, the report of what ran) and to mpirun
#    (Open MPI ends the job: the report written with --output is whole);
#  * a rank killed mid-run: the job ends at once with mpirun's message;
#  * without mpirun: ${RANK} is 0 and the report is the single-host one.
# The RBD case (3 images by ${RANK}) runs when CEPH_CONF names the test
# cluster (scripts/test.sh starts it).
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/tools/block_bench/bench_proc.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
cd "$T"

command -v mpirun >/dev/null || fail "mpirun is missing (openmpi-bin; scripts/setup.sh installs it)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI and Ceph keep allocations until exit (LeakSanitizer builds only).
printf 'leak:libmpi\nleak:libopen-pal\nleak:libopen-rte\nleak:libpmix\nleak:libhwloc\nleak:libevent\nleak:mca_\nleak:librados\nleak:librbd\nleak:libceph-common\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# Under ASan, LeakSanitizer is off in the ranks: Open MPI's plugins leak at
# MPI_Finalize and are unloaded by then, so their reports cannot be
# suppressed by name (block-bench's own leaks are checked by every other
# end-to-end test, which runs the same code without MPI).
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"; fi
# Bound to cores (3 ranks on this 2-core machine: overload allowed): with
# Open MPI's default for more than 2 ranks (bind to socket) each rank loads
# the hwloc topology itself, which takes 30 s under ASan.
MPI=(timeout 120 mpirun --oversubscribe --bind-to core:overload-allowed --mca btl self,vader
     -x LSAN_OPTIONS -x ASAN_OPTIONS -x UBSAN_OPTIONS -np 3)

# --- null driver: the exact merge ------------------------------------------
"${MPI[@]}" "$BB" --name=n --ioengine=null --rw=randrw --bs=4k --size=1g --number_ios=20000 \
  --iodepth=4 --output-format=json+ --output="$T/n.json" 2>"$T/n.err" || fail "null run: $(cat "$T/n.err")"
python3 - "$T/n.json" <<'PY' || fail "merged null report"
import json, sys
d = json.load(open(sys.argv[1]))
cs = d["client_stats"]
ranks = [j for j in cs if j["jobname"] != "All clients"]
alls = [j for j in cs if j["jobname"] == "All clients"]
assert sorted(j["rank"] for j in ranks) == [0, 1, 2], [j.get("rank") for j in ranks]
assert all(j["hostname"] for j in ranks)
assert len(alls) == 1, len(alls)
a = alls[0]
assert a["blkstack"]["ranks"] == 3
for dd in ("read", "write"):
    for k in ("total_ios", "io_bytes", "short_ios", "drop_ios"):
        assert a[dd][k] == sum(j[dd][k] for j in ranks), (dd, k)
    assert a[dd]["total_ios"] > 0
    bins = {}
    for j in ranks:
        for v, n in j[dd]["clat_ns"]["bins"].items():
            bins[v] = bins.get(v, 0) + n
    assert {k: v for k, v in a[dd]["clat_ns"]["bins"].items()} == bins, dd
    n = sum(bins.values())
    assert n == a[dd]["clat_ns"]["N"] == a[dd]["total_ios"]
    assert a[dd]["clat_ns"]["min"] == min(j[dd]["clat_ns"]["min"] for j in ranks)
    assert a[dd]["clat_ns"]["max"] == max(j[dd]["clat_ns"]["max"] for j in ranks)
    # Percentiles of the summed bins, fio's definition (the first bin whose
    # cumulative count reaches p% of N), clamped to [min, max].
    keys = sorted(bins, key=int)
    for p, got in a[dd]["clat_ns"]["percentile"].items():
        need, acc, val = float(p) / 100 * n, 0, None
        for k in keys:
            acc += bins[k]
            if acc >= need:
                val = int(k)
                break
        val = min(max(val, a[dd]["clat_ns"]["min"]), a[dd]["clat_ns"]["max"])
        assert got == val, (dd, p, got, val)
assert sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in ranks) == 3 * 20000
# Each rank draws its own random sequence (the seed mixes in the rank).
assert len({j["blkstack"]["seed"] for j in ranks}) == 3
assert len({j["read"]["total_ios"] for j in ranks}) > 1, [j["read"]["total_ios"] for j in ranks]
assert d["jobs"][0]["jobname"] == "n" and d["jobs"][0]["read"]["total_ios"] == a["read"]["total_ios"]
print("null: exact merge of 3 ranks,", a["read"]["total_ios"], "reads")
PY
fio_jsonplus_clat2csv "$T/n.json" "$T/n.csv" >/dev/null 2>"$T/csv.err" || fail "fio_jsonplus_clat2csv: $(cat "$T/csv.err")"
ls "$T"/n*.csv >/dev/null 2>&1 || fail "fio_jsonplus_clat2csv wrote no CSV"
rows=$(cat "$T"/n*.csv | wc -l)
[ "$rows" -gt 10 ] || fail "fio_jsonplus_clat2csv: only $rows lines"

# Text: the ranks, then All clients.
"${MPI[@]}" "$BB" --name=n --ioengine=null --rw=read --size=8m >"$T/n.txt" 2>&1 || fail "text run: $(cat "$T/n.txt")"
for r in 0 1 2; do grep -q "^Client rank $r (" "$T/n.txt" || fail "no 'Client rank $r' in $(cat "$T/n.txt")"; done
grep -q "^All clients: (groupid=0, jobs=3)" "$T/n.txt" || fail "no All clients block: $(cat "$T/n.txt")"
grep -q "Starting 1 thread on each of 3 ranks" "$T/n.txt" || fail "header"
grep -q "io=24.0MiB" "$T/n.txt" || fail "run status is not the sum of 3 x 8 MiB: $(grep -A2 'Run status' "$T/n.txt")"

# --- ramp_time agreed by every rank (MPI_Ibarrier) -------------------------
# Rank R starts 100 R + 50 ms late (startdelay counts from the common start,
# the ramp from the rank's own start): the ramps end together when the last
# rank's did (250 + 300 ms), every rank then measures its full runtime at
# the rate, and the measured phases start together (one host: their
# CLOCK_MONOTONIC instants compare).
"${MPI[@]}" "$BB" --name=rp --ioengine=null --rw=read --size=1g --rate_iops=2000 \
  --startdelay='${RANK}50ms' --ramp_time=300ms --runtime=500ms --time_based \
  --output-format=json --output="$T/rp.json" 2>"$T/rp.err" || fail "ramp run: $(cat "$T/rp.err")"
python3 - "$T/rp.json" <<'PY' || fail "ramp report"
import json, sys
cs = json.load(open(sys.argv[1]))["client_stats"]
ranks = [j for j in cs if j["jobname"] != "All clients"]
for j in ranks:
    assert 450 <= j["job_runtime"] <= 650, j["job_runtime"]
    assert 850 <= j["read"]["total_ios"] <= 1150, j["read"]["total_ios"]
b = {j["rank"]: j["blkstack"] for j in ranks}
m = [b[r]["measure_start_monotonic_ns"] for r in range(3)]
f = [b[r]["first_io_monotonic_ns"] for r in range(3)]
# Each rank's own clock would give measured starts 100 ms apart.
assert max(m) - min(m) < 50e6, ("measured phases start apart", [x - min(m) for x in m])
# Rank 0 (first I/O at 50 ms) waited for rank 2's ramp (ends at 550 ms).
assert m[0] - f[0] >= 450e6, (m[0] - f[0]) / 1e6
for r in range(3):
    assert m[r] - f[r] >= 300e6, (r, (m[r] - f[r]) / 1e6)
PY

# --- per-rank files, verify, logs ------------------------------------------
"${MPI[@]}" "$BB" --name=v --ioengine=psync --rw=randwrite --bs=4k --size=2m --verify=crc32c \
  --filename="$T/v.\${RANK}.dat" --write_lat_log=lg --output-format=json --output="$T/v.json" \
  2>"$T/v.err" || fail "verify run: $(cat "$T/v.err")"
for r in 0 1 2; do
  [ -s "$T/v.$r.dat" ] || fail "rank $r did not write v.$r.dat"
  [ -s "$T/lg.rank${r}_lat.1.log" ] || fail "no per-rank log lg.rank${r}_lat.1.log: $(ls "$T")"
done
python3 - "$T/v.json" "$T" <<'PY' || fail "per-rank verify report"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = [j for j in d["client_stats"] if j["jobname"] != "All clients"]
for j in ranks:
    assert j["blkstack"]["target"].find("v.%d.dat" % j["rank"]) >= 0, j["blkstack"]["target"]
    assert j["blkstack"]["verified"] == 512 and j["blkstack"]["verify_errors"] == 0, j["blkstack"]
a = [j for j in d["client_stats"] if j["jobname"] == "All clients"][0]
assert a["blkstack"]["verified"] == 3 * 512
PY

# --- a rank without its target ---------------------------------------------
mkdir -p "$T/d0" "$T/d2"
set +e
"${MPI[@]}" "$BB" --name=m --ioengine=psync --rw=read --size=1m --filename="$T/d\${RANK}/f" \
  --runtime=30 --time_based >"$T/m.out" 2>"$T/m.err"
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "missing target on rank 1: exit $rc (124: hang)"
grep -q "rank 1 ([^)]*): job 'm' (clone 0): .*d1/f.*No such file or directory" "$T/m.err" ||
  fail "the message does not name rank 1 and its error: $(cat "$T/m.err")"
[ "$(grep -c "d1/f" "$T/m.err")" = 1 ] || fail "said more than once: $(cat "$T/m.err")"
! grep -q "All clients" "$T/m.out" || fail "a report although no rank ran"

# --- SIGINT ----------------------------------------------------------------
# The ranks of the mpirun under timeout PID, once each runs its I/O thread
# ("bb-s.0"), after a second of I/O; only our own processes (other tests
# may run block-bench beside this one).
running_ranks() {
  local pid=$1 i mp ranks n p
  for ((i = 0; i < 1200; i++)); do
    mp=$(pgrep -P "$pid" -x mpirun || true)
    ranks=$([ -n "$mp" ] && pgrep -P "$mp" -x block_bench || true)
    n=0
    for p in $ranks; do bb_running "$p" s && n=$((n + 1)); done
    if [ "$n" = 3 ]; then sleep 1; echo "$mp" $ranks; return 0; fi
    sleep 0.1
  done
  return 1
}
sigtest() {  # sigtest WHO OUTFILE-OPTION...: runs 60 s, interrupted once running
  local who=$1; shift
  # Ctrl-C on mpirun: SIGTERM to the ranks, SIGKILL 1 s later by default;
  # 10 s leave a sanitized rank 0 the time to write its report.
  [ "$who" = mpirun ] && export OMPI_MCA_odls_base_sigkill_timeout=10
  "${MPI[@]}" "$BB" --name=s --ioengine=null --rw=read --size=1g --runtime=60 --time_based \
    --output-format=json "$@" >"$T/s.json" 2>"$T/s.err" &
  local pid=$!
  local procs
  procs=$(running_ranks "$pid") || { kill "$pid"; fail "the ranks did not start"; }
  # shellcheck disable=SC2086  # a list of pids
  if [ "$who" = ranks ]; then kill -INT ${procs#* }; else kill -INT ${procs%% *}; fi
  set +e; wait "$pid"; local rc=$?; set -e
  echo "$rc"
}
rc=$(sigtest ranks)
[ "$rc" = 130 ] || fail "SIGINT to the ranks: exit $rc: $(tail -5 "$T/s.err")"
python3 - "$T/s.json" <<'PY' || fail "report after SIGINT to the ranks"
import json, sys
d = json.load(open(sys.argv[1]))
cs = d["client_stats"]
assert len(cs) == 4 and all(j["blkstack"]["interrupted"] for j in cs)
assert all(j["read"]["total_ios"] > 0 for j in cs)
assert all(j["job_runtime"] < 50000 for j in cs), [j["job_runtime"] for j in cs]
PY
rm -f "$T/s2.json"
rc=$(sigtest mpirun --output="$T/s2.json")
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "SIGINT to mpirun: exit $rc"
python3 - "$T/s2.json" <<'PY' || fail "report after SIGINT to mpirun"
import json, sys
d = json.load(open(sys.argv[1]))
cs = d["client_stats"]
assert len(cs) == 4 and all(j["blkstack"]["interrupted"] for j in cs), cs
PY

# A rank killed mid-run ends the whole job (Open MPI's default): no hang.
"${MPI[@]}" "$BB" --name=s --ioengine=null --rw=read --size=1g --runtime=60 --time_based \
  --output-format=json >"$T/k.json" 2>"$T/k.err" &
pid=$!
procs=$(running_ranks "$pid") || { kill "$pid"; fail "the ranks did not start"; }
t0=$(date +%s)
# shellcheck disable=SC2206  # a list of pids
ranks=(${procs#* })
kill -KILL "${ranks[2]}"
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "a killed rank: exit $rc"
[ $(( $(date +%s) - t0 )) -lt 30 ] || fail "a killed rank: the job took $(( $(date +%s) - t0 )) s to end"
grep -q "signal 9" "$T/k.err" || fail "mpirun did not say which rank died: $(tail -5 "$T/k.err")"

# --- RBD: 3 ranks, 3 images by ${RANK} --------------------------------------
if [ -n "${CEPH_CONF:-}" ] && [ -r "${CEPH_CONF}" ]; then
  img="bbmpi-$$"
  trap 'for r in 0 1 2; do timeout 60 rbd rm "rbd/$img-$r" >/dev/null 2>&1 || true; done' EXIT
  for r in 0 1 2; do
    timeout 60 rbd create --size 16M --image-feature layering "rbd/$img-$r" || fail "rbd create"
  done
  "${MPI[@]}" -x CEPH_CONF "$BB" --name=r --ioengine=rbd --pool=rbd --rbdname="$img-\${RANK}" \
    --rw=randwrite --bs=4k --size=4m --iodepth=8 --verify=crc32c --output-format=json \
    --output="$T/r.json" 2>"$T/r.err" || fail "rbd run: $(cat "$T/r.err")"
  python3 - "$T/r.json" "$img" <<'PY' || fail "rbd report"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = [j for j in d["client_stats"] if j["jobname"] != "All clients"]
assert len(ranks) == 3
for j in ranks:
    assert ("image=%s-%d" % (sys.argv[2], j["rank"])) in j["blkstack"]["target"], j["blkstack"]["target"]
    assert j["blkstack"]["verified"] == 1024 and j["blkstack"]["verify_errors"] == 0, j["blkstack"]
    assert j["error"] == 0
PY
  echo "rbd: 3 ranks, 3 images, verified"
elif [ "${BLK_RBD_REQUIRE_CLUSTER:-0}" = 1 ]; then
  fail "BLK_RBD_REQUIRE_CLUSTER=1 but CEPH_CONF is not set or not readable"
else
  echo "SKIPPED: the RBD case (no Ceph cluster: CEPH_CONF is not set; scripts/ceph/cluster.sh start)"
fi

# --- without mpirun ----------------------------------------------------------
"$BB" --name=one --ioengine=psync --rw=write --size=1m --filename="$T/one.\${RANK}" \
  --output-format=json >"$T/one.json" 2>"$T/one.err" || fail "single run: $(cat "$T/one.err")"
[ -s "$T/one.0" ] || fail "\${RANK} is not 0 without mpirun"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'client_stats' not in d and d['jobs'][0]['jobname']=='one'" "$T/one.json" ||
  fail "single-host report changed"
echo "PASS"

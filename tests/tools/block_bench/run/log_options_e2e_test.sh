#!/usr/bin/env bash
# fio's log and sample options end to end, on the real binary:
#  * log_unix_epoch / log_alternate_epoch(_clock_id): the time column is the
#    job's start on that clock (ms) plus the ms since it;
#  * log_max_value: averaged latency logs hold the window's maximum
#    (>= the mean the same window would have);
#  * per_job_logs=0: <prefix>_<kind>.log, every job's entries in one file,
#    appended to by a later run (fio 3.33 does the same);
#  * log_compression: accepted with a warning, the files unchanged;
#    log_store_compressed=1: .log.fz files instead of .log
#    (log_store_compressed_e2e_test checks them with fio);
#  * bwavgtime / iopsavgtime: the report's sample counts follow the windows;
#  * disk_util=0: no "Disk stats" / "disk_util" even on a block device;
#  * ioengine=posixaio: runs on the file driver's aio=threads, one worker.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
NULLDEV=(--blockdev=driver=null,size=1G,latency-ns=20000 --rw=randread --bs=4k)

# 1. log_unix_epoch: the time column near `date +%s%3N` around the run.
before=$(date +%s%3N)
"$BB" --name=u "${NULLDEV[@]}" --runtime=600ms --time_based --write_bw_log=u --write_lat_log=u \
  --write_iops_log=u --write_hist_log=u --log_hist_msec=200 --log_avg_msec=100 --log_unix_epoch=1 \
  >/dev/null || fail "log_unix_epoch run exited $?"
after=$(date +%s%3N)
for f in u_bw.1.log u_iops.1.log u_lat.1.log u_clat.1.log u_clat_hist.1.log; do
  [[ -s $f ]] || fail "no $f"
  awk -F', ' -v lo="$before" -v hi="$after" '$1 < lo || $1 > hi { bad = 1 } END { exit bad }' "$f" ||
    fail "$f: time column outside [$before, $after]: $(head -2 "$f")"
done
# Per-I/O logs too (no log_avg_msec).
"$BB" --name=p "${NULLDEV[@]}" --number_ios=100 --write_lat_log=p --log_unix_epoch=1 >/dev/null ||
  fail "per-I/O log_unix_epoch run"
after=$(date +%s%3N)
[[ $(wc -l <p_clat.1.log) -eq 100 ]] || fail "p_clat.1.log: $(wc -l <p_clat.1.log) lines for 100 I/Os"
awk -F', ' -v lo="$before" -v hi="$after" '$1 < lo || $1 > hi { bad = 1 } END { exit bad }' p_clat.1.log ||
  fail "per-I/O log time column: $(head -2 p_clat.1.log)"

# 2. log_alternate_epoch with clock 1 (CLOCK_MONOTONIC): ms of uptime.
up0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
"$BB" --name=m "${NULLDEV[@]}" --runtime=300ms --time_based --write_bw_log=m --log_avg_msec=100 \
  --log_alternate_epoch=1 --log_alternate_epoch_clock_id=1 >/dev/null || fail "alternate epoch run"
up1=$(awk '{ printf "%d", $1 * 1000 + 10 }' /proc/uptime)
awk -F', ' -v lo="$up0" -v hi="$up1" '$1 < lo || $1 > hi { bad = 1 } END { exit bad }' m_bw.1.log ||
  fail "m_bw.1.log not in CLOCK_MONOTONIC ms [$up0, $up1]: $(head -2 m_bw.1.log)"
"$BB" --name=m "${NULLDEV[@]}" --size=1m --log_alternate_epoch_clock_id=99 2>err.txt &&
  fail "clock id 99 accepted"
grep -q "option '--log_alternate_epoch_clock_id': clock id 99 is not a clock" err.txt || fail "clock id 99: $(cat err.txt)"

# 3. log_max_value: the same job's windows, mean and max.  The null
# driver's latency is fixed, so the I/Os of a window differ only by the
# scheduling around them; the max is at least the mean window by window
# and strictly above it somewhere.
for mv in 0 1; do
  "$BB" --name=x$mv "${NULLDEV[@]}" --runtime=1s --time_based --write_lat_log=x$mv \
    --log_avg_msec=100 --log_max_value=$mv >/dev/null || fail "log_max_value=$mv run"
done
python3 - <<'PY' || fail "log_max_value: $(head -3 x0_clat.1.log x1_clat.1.log)"
def rows(f):
    return [[int(x) for x in l.split(", ")] for l in open(f).read().splitlines()]
avg, mx = rows("x0_clat.1.log"), rows("x1_clat.1.log")
assert 8 <= len(avg) <= 11 and 8 <= len(mx) <= 11, (len(avg), len(mx))
for r in avg + mx:
    assert len(r) == 5 and r[2] == 0 and r[3] == 0, r
# latency-ns=20000: every clat is at least 20 us.
assert min(r[1] for r in avg) >= 20000 and min(r[1] for r in mx) >= 20000
assert sorted(r[1] for r in mx)[len(mx) // 2] >= sorted(r[1] for r in avg)[len(avg) // 2]
assert max(r[1] for r in mx) > max(r[1] for r in avg), (mx, avg)
PY

# 4. per_job_logs=0: one file per prefix and kind, both jobs' entries in it
# (each job's times start again), a second run appends.
rm -f s_*.log
"$BB" --name=s "${NULLDEV[@]}" --runtime=500ms --time_based --numjobs=2 --write_bw_log=s \
  --write_iops_log=s --log_avg_msec=100 --per_job_logs=0 >/dev/null || fail "per_job_logs=0 run"
ls s_*.log | sort | tr '\n' ' ' | grep -qx 's_bw.log s_iops.log ' || fail "files: $(ls s_*)"
n1=$(wc -l <s_bw.log)
(( n1 >= 8 && n1 <= 12 )) || fail "s_bw.log has $n1 lines for 2 jobs x 5 windows"
restarts=$(awk -F', ' 'NR > 1 && $1 < prev { n++ } { prev = $1 } END { print n + 0 }' s_bw.log)
[[ $restarts -eq 1 ]] || fail "s_bw.log: $restarts time restarts for 2 jobs: $(cat s_bw.log)"
"$BB" --name=s "${NULLDEV[@]}" --runtime=500ms --time_based --write_bw_log=s --log_avg_msec=100 \
  --per_job_logs=0 >/dev/null || fail "second per_job_logs=0 run"
n2=$(wc -l <s_bw.log)
(( n2 >= n1 + 4 )) || fail "s_bw.log not appended to: $n1 then $n2 lines"
# per_job_logs=1 (default) replaces its file.
for i in 1 2; do
  "$BB" --name=r "${NULLDEV[@]}" --runtime=300ms --time_based --write_bw_log=r --log_avg_msec=100 \
    >/dev/null || fail "per_job_logs=1 run $i"
done
n=$(wc -l <r_bw.1.log)
(( n >= 2 && n <= 4 )) || fail "r_bw.1.log: $n lines (replaced by each run: 3)"

# 5. log_compression: a header note (stderr silent), the same files;
# log_store_compressed=1: .fz files.
"$BB" --name=c "${NULLDEV[@]}" --number_ios=50 --write_lat_log=c --log_compression=64k \
  >out.txt 2>err.txt || fail "log_compression run"
grep -q "^c: note: log_compression: the logs are kept uncompressed" out.txt || fail "no note: $(cat out.txt)"
[ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
[[ $(wc -l <c_clat.1.log) -eq 50 ]] || fail "c_clat.1.log: $(wc -l <c_clat.1.log) lines"
rm -f c_bw.1.log
"$BB" --name=c "${NULLDEV[@]}" --size=1m --write_bw_log=c --log_store_compressed=1 >/dev/null 2>err.txt ||
  fail "log_store_compressed=1: $(cat err.txt)"
[[ -s c_bw.1.log.fz && ! -e c_bw.1.log ]] || fail "log_store_compressed=1: $(ls c_bw*)"

# 6. bwavgtime / iopsavgtime: samples per window over 2 s.
"$BB" --name=w "${NULLDEV[@]}" --runtime=2s --time_based --bwavgtime=100 --iopsavgtime=250 \
  --output-format=json >w.json || fail "bwavgtime run"
python3 - <<'PY' || fail "sample counts: $(grep -o '"[a-z]*_samples": [0-9]*' w.json)"
import json
r = json.load(open("w.json"))["jobs"][0]["read"]
assert 18 <= r["bw_samples"] <= 21, r["bw_samples"]
assert 7 <= r["iops_samples"] <= 9, r["iops_samples"]
assert r["bw_min"] <= r["bw_mean"] <= r["bw_max"], r
PY
"$BB" --name=w "${NULLDEV[@]}" --runtime=2s --time_based --output-format=json >w.json ||
  fail "default window run"
python3 -c "
import json; r = json.load(open('w.json'))['jobs'][0]['read']
assert 3 <= r['bw_samples'] <= 5 and 3 <= r['iops_samples'] <= 5, r" || fail "default windows"

# 7. disk_util=0 on a file on a block device (when there is one under $T).
dev=$(stat -c %d "$T")
if [[ -e /sys/dev/block/$((dev >> 8)):$((dev & 255))/stat ]]; then
  for du in 1 0; do
    "$BB" --name=d --filename="$T/d.dat" --rw=write --bs=4k --size=1m --disk_util=$du \
      --output-format=json,normal >d$du.out 2>d$du.err || fail "disk_util=$du run"
  done
  # As fio, json,normal is all on stdout: the JSON document, then the text.
  grep -q '^Disk stats (read/write):$' d1.out || fail "disk_util=1: no Disk stats: $(tail -3 d1.out)"
  grep -q '"disk_util" : \[\|"disk_util": \[' d1.out || fail "disk_util=1: no disk_util array"
  grep -q 'Disk stats' d0.out && fail "disk_util=0: Disk stats: $(tail -3 d0.out)"
  grep -q '"disk_util" : \[\|"disk_util": \[' d0.out && fail "disk_util=0: disk_util array"
  "$BB" --name=d --filename="$T/d.dat" --rw=write --bs=4k --size=1m --disk_util=0 \
    --output-format=terse >d0.terse || fail "disk_util=0 terse run"
  [[ $(tr ';' '\n' <d0.terse | wc -l) -eq 121 ]] || fail "disk_util=0 terse has disk fields"
else
  echo "note: $T is on no block device; disk_util checked by parsing only"
fi

# 8. ioengine=posixaio: aio=threads with one worker (one file), slat up to the
#    hand-over to it (aio-threads-handover=on), iodepth kept.
"$BB" --name=a --filename="$T/a.dat" --ioengine=posixaio --iodepth=8 --rw=randread --bs=4k \
  --size=4m >a.txt 2>err.txt || fail "posixaio run: $(cat err.txt)"
grep -q "blkstack     : driver=file,filename=$T/a.dat,aio=threads,cache.direct=off,aio-threads-handover=on,thread-pool-size=1," a.txt ||
  fail "posixaio spec: $(grep blkstack a.txt)"
grep -q "read: IOPS=" a.txt || fail "posixaio report: $(head -5 a.txt)"
grep -Eq "IO depths    : 1=[0-9.]+%, 2=[0-9.]+%, 4=[0-9.]+%, 8=[1-9]" a.txt ||
  fail "posixaio depth: $(grep 'IO depths' a.txt)"
echo PASS

#!/bin/bash
# block-bench end to end over every target and workload shape (CI runs it
# under ASan+UBSan too, like the whole suite):
#   targets:   null | file aio=native (libaio, O_DIRECT) | file aio=threads
#              (psync) | rbd (the test cluster of CEPH_CONF)
#   workloads: read | write | randrw+verify | two stonewalled jobs |
#              numjobs=4 | SIGINT mid-run
# Each cell asserts the exit status and the JSON report (bytes, errors,
# verify counts, groups, interrupted).  Without CEPH_CONF the rbd column says
# SKIPPED loudly (and fails when BLK_RBD_REQUIRE_CLUSTER=1, as in CI).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=tests/tools/block_bench/bench_proc.sh
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"

# librados/librbd keep allocations until exit (LeakSanitizer builds only).
printf 'leak:librados\nleak:librbd\nleak:libceph-common\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

SIZE=8m
truncate -s 64m "$T/m.dat"
targets=(null native threads)
RBD_IMAGE=""
if [ -n "${CEPH_CONF:-}" ] && [ -r "${CEPH_CONF}" ]; then
  RBD_IMAGE="bbmatrix-$$"
  timeout 60 rbd create --size 64M --image-feature layering "rbd/$RBD_IMAGE" ||
    fail "rbd create rbd/$RBD_IMAGE (CEPH_CONF=$CEPH_CONF)"
  trap 'timeout 60 rbd rm "rbd/$RBD_IMAGE" >/dev/null 2>&1' EXIT
  targets+=(rbd)
elif [ "${BLK_RBD_REQUIRE_CLUSTER:-0}" = 1 ]; then
  fail "BLK_RBD_REQUIRE_CLUSTER=1 but CEPH_CONF is not set or not readable"
else
  echo "SKIPPED: the rbd column (no Ceph cluster: CEPH_CONF is not set; scripts/ceph/cluster.sh start)"
fi

target_args() {
  case "$1" in
    null) echo "--ioengine=null" ;;
    native) echo "--ioengine=libaio --direct=1 --filename=$T/m.dat" ;;
    threads) echo "--ioengine=psync --filename=$T/m.dat" ;;
    rbd) echo "--ioengine=rbd --pool=rbd --rbdname=$RBD_IMAGE" ;;
  esac
}

# check FILE PYTHON-EXPR-LINES: asserts on j (the first job), jobs, d (all).
check() {
  local file=$1 what=$2 code=$3
  python3 - "$file" "$what" <<PY || fail "$what: $(head -c 600 "$file")"
import json, sys
d = json.load(open(sys.argv[1]))
jobs = d["jobs"]
j = jobs[0]
$code
PY
}

cells=0
for t in "${targets[@]}"; do
  ta=$(target_args "$t")
  # shellcheck disable=SC2086  # $ta is a list of options

  # read
  "$BB" --output-format=json --name=r --rw=read --bs=64k --size=$SIZE --iodepth=4 $ta \
    >"$T/o.json" 2>"$T/e.txt" || fail "$t read exited $?: $(cat "$T/e.txt")"
  check "$T/o.json" "$t read" '
assert j["error"] == 0 and j["total_err"] == 0
assert j["read"]["io_bytes"] == 8 << 20, j["read"]["io_bytes"]
assert j["read"]["total_ios"] == 128'

  # write
  "$BB" --output-format=json --name=w --rw=write --bs=64k --size=$SIZE --iodepth=4 $ta \
    >"$T/o.json" 2>"$T/e.txt" || fail "$t write exited $?: $(cat "$T/e.txt")"
  check "$T/o.json" "$t write" '
assert j["error"] == 0 and j["total_err"] == 0
assert j["write"]["io_bytes"] == 8 << 20'

  # randrw + verify: every written block read back and checked.  fio's
  # null engine moves no data and checks nothing (FIO_FAKEIO): the reads
  # are issued, nothing counts as verified, the job ends well.  A null
  # driver given as a spec is a device: it stores nothing, so verify fails
  # there (and says so).
  "$BB" --output-format=json --name=v --rw=randrw --bs=4k --size=$SIZE --iodepth=8 \
    --verify=crc32c $ta >"$T/o.json" 2>"$T/e.txt"
  rc=$?
  if [ "$t" = null ]; then
    [ $rc -eq 0 ] || fail "null engine randrw+verify exited $rc: $(cat "$T/e.txt")"
    check "$T/o.json" "$t verify" '
b = j["blkstack"]
assert j["error"] == 0 and j["read"]["total_ios"] > 0, j["read"]
assert b["verified"] == 0 and b["verify_errors"] == 0, b'
    "$BB" --output-format=json --name=v --rw=randrw --bs=4k --size=$SIZE --iodepth=8 \
      --verify=crc32c --blockdev="driver=null,size=$SIZE" >"$T/o.json" 2>"$T/e.txt"
    rc=$?
    [ $rc -eq 1 ] || fail "null driver randrw+verify exited $rc (a device that stores nothing must fail verify)"
    grep -q "verify failed" "$T/e.txt" || fail "null verify message: $(cat "$T/e.txt")"
    check "$T/o.json" "$t verify" '
assert j["error"] == 84, j["error"]
assert j["blkstack"]["verify_errors"] > 0'
  else
    [ $rc -eq 0 ] || fail "$t randrw+verify exited $rc: $(cat "$T/e.txt")"
    check "$T/o.json" "$t verify" '
b = j["blkstack"]
assert j["error"] == 0 and j["total_err"] == 0
assert b["verify_errors"] == 0 and b["verify_not_verified"] == 0, b
assert b["verified"] > 0 and b["verified"] >= j["write"]["total_ios"] // 2, b'
  fi

  # two stonewalled jobs: two groups, the second after the first
  printf '[global]\nbs=16k\nsize=4m\n[w]\nrw=write\n[r]\nstonewall\nrw=randread\niodepth=4\n' \
    >"$T/two.fio"
  "$BB" --output-format=json $ta "$T/two.fio" >"$T/o.json" 2>"$T/e.txt" ||
    fail "$t stonewall exited $?: $(cat "$T/e.txt")"
  check "$T/o.json" "$t stonewall" '
assert [x["groupid"] for x in jobs] == [0, 1]
assert jobs[0]["write"]["io_bytes"] == 4 << 20 and jobs[1]["read"]["io_bytes"] == 4 << 20
assert all(x["error"] == 0 for x in jobs)'

  # numjobs=4 with group reporting: four clones' I/O in one report
  "$BB" --output-format=json --name=n --rw=randread --bs=4k --size=2m --numjobs=4 \
    --group_reporting $ta >"$T/o.json" 2>"$T/e.txt" || fail "$t numjobs exited $?: $(cat "$T/e.txt")"
  check "$T/o.json" "$t numjobs" '
assert len(jobs) == 1 and j["blkstack"]["jobs"] == 4
assert j["read"]["total_ios"] == 4 * 512, j["read"]["total_ios"]'

  # SIGINT mid-run: report of what ran, exit 130, within a second (3 s for
  # a loaded sanitized run; the job's runtime is a minute).  Signalled once
  # the clone's thread ("bb-s.0") runs (it starts after the target opened,
  # the rbd image included) and 0.3 s more.
  "$BB" --output-format=json --name=s --rw=randrw --bs=4k --size=$SIZE --iodepth=4 --runtime=60 \
    --time_based $ta >"$T/o.json" 2>"$T/e.txt" &
  pid=$!
  bb_wait_running $pid s 20 || { kill -9 $pid; fail "$t SIGINT: block-bench did not start within 20 s"; }
  sleep 0.3
  t0=$(date +%s%3N)
  kill -INT $pid
  wait $pid
  rc=$?
  ms=$(($(date +%s%3N) - t0))
  [ $rc -eq 130 ] || fail "$t SIGINT exited $rc: $(cat "$T/e.txt")"
  [ $ms -le 3000 ] || fail "$t SIGINT took $ms ms"
  check "$T/o.json" "$t sigint" '
assert j["blkstack"]["interrupted"] is True
assert j["error"] == 0 and j["total_err"] == 0
assert j["read"]["total_ios"] + j["write"]["total_ios"] > 0'
  cells=$((cells + 6))
  echo "ok: $t (6 cells)"
done
echo "PASS: $cells cells"

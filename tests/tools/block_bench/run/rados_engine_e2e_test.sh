#!/bin/bash
# ioengine=rados on the binary, against the test cluster of CEPH_CONF
# (scripts/ceph/cluster.sh; scripts/test.sh passes it), with fio 3.33's
# rados engine beside it:
#   verify   fio's crc32c objects verify in block-bench and block-bench's md5
#            objects in fio; fio fails on an object written with another
#            method (its check is real);
#   same I/O randrw at iodepth 4: the two write_iologs are equal;
#   objects  named as fio names its files (JOB.CLONE.FILE; nrfiles=2: two
#            objects of size/2 on one cluster connection, as fio's one per
#            job), created first (touch_objects=1) and left
#            after the job; touch_objects=0 reads a missing object as zeros
#            and creates nothing;
#   trim     rw=trim zeroes the object (read back with `rados get`);
#   names    clustername=ceph clientname=admin connects (client. added),
#            an unknown client is refused, in both tools;
#   errors   no pool=, no size=, a missing pool and an unreadable conf=
#            name what is wrong (exit 1); a bad touch_objects= names the
#            job file and line.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
if [ -z "${CEPH_CONF:-}" ] || [ ! -r "${CEPH_CONF}" ]; then
  [ "${BLK_RBD_REQUIRE_CLUSTER:-0}" = 1 ] &&
    fail "BLK_RBD_REQUIRE_CLUSTER=1 but CEPH_CONF is not set or not readable"
  echo "SKIPPED: no Ceph cluster (CEPH_CONF is not set; scripts/ceph/cluster.sh start)"
  exit 0
fi
require_tool rados ceph-common
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/rados.XXXXXX")"
cd "$T" || fail cd
# librados keeps allocations until exit (LeakSanitizer builds only).
printf 'leak:librados\nleak:librbd\nleak:libceph-common\n' >lsan.supp
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
P="rt$$"  # every object of this run starts with it
cleanup() {
  for o in $(timeout 60 rados -p rbd ls 2>/dev/null | grep "^$P"); do
    timeout 60 rados -p rbd rm "$o" >/dev/null 2>&1
  done
  rm -rf "$T"
}
trap cleanup EXIT
FIO_RADOS=(--ioengine=rados --pool=rbd --conf="$CEPH_CONF")
BB_RADOS=(--ioengine=rados --pool=rbd)

# jq-like checks on the first job of a JSON report: python expressions on j.
check() {
  local file=$1; shift
  python3 - "$file" "$@" <<'PY' || fail "$file: $(head -c 3000 "$file")"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
for expr in sys.argv[2:]:
    assert eval(expr), (expr, {k: j[k] for k in ("read", "write", "trim") if k in j} | {"error": j["error"], "blkstack": j.get("blkstack")})
PY
}

# ---- verify across the tools -------------------------------------------------
timeout 120 fio --name="${P}a" "${FIO_RADOS[@]}" --size=8m --bs=64k --rw=write --iodepth=8 \
  --verify=crc32c --do_verify=0 --output-format=json >fa.json 2>fa.err || fail "fio write: $(cat fa.err)"
timeout 120 "$BB" --name="${P}a" "${BB_RADOS[@]}" --size=8m --bs=64k --rw=read --iodepth=8 \
  --verify=crc32c --output-format=json >ba.json 2>ba.err || fail "bb verify of fio's object: $(cat ba.err)"
check ba.json 'j["read"]["total_ios"] == 128' 'j["error"] == 0' \
  'j["blkstack"]["verified"] == 128' 'j["blkstack"]["verify_errors"] == 0' 'j["blkstack"]["engine"] == "rados"'
echo "block-bench verified fio's 128 crc32c blocks"

timeout 120 "$BB" --name="${P}b" "${BB_RADOS[@]}" --size=8m --bs=64k --rw=randwrite --iodepth=8 \
  --verify=md5 --do_verify=0 --output-format=json >bb.json 2>bb.err || fail "bb write: $(cat bb.err)"
check bb.json 'j["write"]["total_ios"] == 128' 'j["error"] == 0'
timeout 120 fio --name="${P}b" "${FIO_RADOS[@]}" --size=8m --bs=64k --rw=read --iodepth=8 \
  --verify=md5 --output-format=json >fb.json 2>fb.err || fail "fio verify of bb's object: $(cat fb.err)"
check fb.json 'j["read"]["total_ios"] == 128' 'j["error"] == 0'
# The same object checked as crc32c fails in fio: its verify really looks.
if timeout 120 fio --name="${P}b" "${FIO_RADOS[@]}" --size=8m --bs=64k --rw=read \
  --verify=crc32c --output-format=json >fc.json 2>fc.err; then
  fail "fio verified md5 blocks as crc32c: $(cat fc.err)"
fi
echo "fio verified block-bench's 128 md5 blocks (and refused them as crc32c)"

# ---- the same I/O ------------------------------------------------------------
for tool in fio "$BB"; do
  out=$([ "$tool" = fio ] && echo f || echo b)
  args=("${BB_RADOS[@]}"); [ "$tool" = fio ] && args=("${FIO_RADOS[@]}")
  timeout 120 "$tool" --name="${P}c" "${args[@]}" --size=1m --bs=4k --rw=randrw --iodepth=4 \
    --write_iolog="$out.log" >"$out.out" 2>"$out.err" || fail "$tool randrw: $(cat "$out.err")"
  awk '$3=="read"||$3=="write"{print $3,$4,$5}' "$out.log" >"$out.seq"
done
[ "$(wc -l <f.seq)" = 256 ] || fail "fio did $(wc -l <f.seq) I/Os, not 256"
cmp -s f.seq b.seq || fail "block-bench's randrw differs from fio's: $(diff f.seq b.seq | head -5)"
echo "randrw: the same 256 I/Os as fio"

# ---- objects -----------------------------------------------------------------
timeout 120 "$BB" --name="${P}d" "${BB_RADOS[@]}" --nrfiles=2 --size=8m --bs=1m --rw=write \
  --output-format=json >bd.json 2>bd.err || fail "bb nrfiles=2: $(cat bd.err)"
check bd.json 'j["write"]["io_bytes"] == 8 << 20' \
  'j["blkstack"]["counters"]["rados_connection_users"] == 2'  # one connection, as fio's
for o in "${P}d.0.0" "${P}d.0.1"; do
  size=$(timeout 60 rados -p rbd stat "$o" | sed -n 's/.* size \([0-9]*\).*/\1/p')
  [ "$size" = $((4 << 20)) ] || fail "object $o: size '$size', not 4 MiB"
done
echo "nrfiles=2: objects ${P}d.0.0 and ${P}d.0.1 of 4 MiB each, on one connection"

timeout 120 "$BB" --name="${P}e" "${BB_RADOS[@]}" --size=1m --rw=read --touch_objects=0 \
  --verify_pattern=0 --verify=pattern --output-format=json >be.json 2>be.err ||
  fail "bb read of a missing object: $(cat be.err)"
check be.json 'j["read"]["total_ios"] == 256' 'j["blkstack"]["verify_errors"] == 0'
timeout 60 rados -p rbd stat "${P}e.0.0" >/dev/null 2>&1 && fail "touch_objects=0 created ${P}e.0.0"
timeout 120 "$BB" --name="${P}e" "${BB_RADOS[@]}" --size=1m --rw=read >/dev/null 2>be.err ||
  fail "bb read with touch: $(cat be.err)"
timeout 60 rados -p rbd stat "${P}e.0.0" >/dev/null 2>&1 || fail "touch_objects=1 did not create ${P}e.0.0"
echo "touch_objects: a missing object reads as zeros; touching creates it"

# ---- trim --------------------------------------------------------------------
timeout 120 "$BB" --name="${P}b" "${BB_RADOS[@]}" --size=8m --bs=64k --rw=trim \
  --output-format=json >bt.json 2>bt.err || fail "bb trim: $(cat bt.err)"
check bt.json 'j["trim"]["total_ios"] == 128' 'j["error"] == 0'
timeout 60 rados -p rbd get "${P}b.0.0" got.dat || fail "rados get ${P}b.0.0"
python3 -c "
import sys; d = open('got.dat', 'rb').read()
assert d.count(0) == len(d) and len(d) <= 8 << 20, (len(d), len(d) - d.count(0))" ||
  fail "rw=trim left data in ${P}b.0.0"
echo "rw=trim zeroed the object"

# ---- cluster and client names ------------------------------------------------
# clustername= takes the full client name: both tools add "client." to
# clientname=admin and connect; an unknown client fails in both (fio 3.33
# dies of SIGSEGV there; block-bench names the user and the errno).
for tool in fio "$BB"; do
  args=("${BB_RADOS[@]}"); [ "$tool" = fio ] && args=("${FIO_RADOS[@]}")
  timeout 120 "$tool" --name="${P}g" "${args[@]}" --clustername=ceph --clientname=admin \
    --size=1m --bs=64k --rw=write --output-format=json >g.json 2>g.err ||
    fail "$tool clustername=ceph clientname=admin: $(cat g.err)"
  check g.json 'j["write"]["total_ios"] == 16' 'j["error"] == 0'
  if timeout 120 "$tool" --name="${P}g" "${args[@]}" --clientname="nobody$P" --size=1m \
    --rw=write >g.out 2>g.err; then
    fail "$tool connected as client.nobody$P"
  fi
done
grep -q "cannot connect to the Ceph cluster.*user 'nobody$P'" g.err ||
  fail "unknown client: $(cat g.err)"
echo "clustername/clientname: client.admin connects in both tools, an unknown client in neither"

# ---- errors ------------------------------------------------------------------
expect_error() {  # WHAT PATTERN ARGS...: exit 1 and PATTERN on stderr
  local what=$1 pattern=$2; shift 2
  timeout 120 "$BB" "$@" >err.out 2>err.txt
  local rc=$?
  [ "$rc" = 1 ] || fail "$what: exit $rc, not 1: $(cat err.txt)"
  grep -qE "$pattern" err.txt || fail "$what: no /$pattern/ in: $(cat err.txt)"
}
expect_error "no pool" "needs pool=POOL" --name="${P}f" --ioengine=rados --size=1m --rw=read
expect_error "no size" "needs size=" --name="${P}f" "${BB_RADOS[@]}" --rw=read
expect_error "missing pool" "cannot open pool 'nopool$P'.*No such file" \
  --name="${P}f" --ioengine=rados --pool="nopool$P" --size=1m --rw=read
expect_error "bad conf" "cannot read Ceph config 'conf=$T/none.conf'" \
  --name="${P}f" "${BB_RADOS[@]}" --conf="$T/none.conf" --size=1m --rw=read
printf '[j]\nioengine=rados\npool=rbd\nsize=1m\ntouch_objects=maybe\n' >bad.fio
timeout 60 "$BB" bad.fio >/dev/null 2>err.txt && fail "touch_objects=maybe accepted"
grep -qE "bad.fio:5.*touch_objects" err.txt || fail "touch_objects=maybe: $(cat err.txt)"
echo "errors name the option, the pool, the conf and the job file's line"
echo PASS

#!/bin/bash
# ioengine=e4defrag (fio's engine: each write moves a donor file's blocks
# into the job's file with EXT4_IOC_MOVE_EXT) against fio 3.33 on a loop
# device with a fresh ext4:
#   a sequential write job (donor allocated once) and an inplace=1 random
#   write job run in both tools with the same I/O counts, block-bench's
#   counter showing every block of the file moved; a read job fails with
#   EINVAL (error 22), a job without donorname= or without filesize= (the
#   donor's allocation) fails in both; and on the test's own directory,
#   whatever its file system, both tools end with the same exit status and
#   error (this machine's root ext4 refuses the move with EPERM).
# Needs root, losetup, mkfs.ext4 and fio (skip, or fail under
# BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/e4defrag.XXXXXX")"
DEV="" MNT=""
cleanup() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  [ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "$1"
  echo "SKIPPED: $1"
  exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (a loop device and a mount)"
for tool in fio losetup mkfs.ext4; do command -v $tool >/dev/null || skip "$tool is missing"; done
cd "$T" || fail cd
truncate -s 64m img
DEV=$(losetup -f --show img) || skip "losetup failed (no loop devices here)"
mkfs.ext4 -q -b 4096 "$DEV" || fail "mkfs.ext4 $DEV"
mkdir mnt && mount "$DEV" mnt || fail "mount $DEV"
MNT="$T/mnt"

# run TOOL DIR ARGS...: in DIR; exit status in $rc, "error total_ios" of
# the JSON report (its first job, writes or reads) in $res, stderr in DIR/err.
run() {
  local tool=$1 dir=$2; shift 2
  local bin=fio; [ "$tool" = bb ] && bin=$BB
  mkdir -p "$dir"
  (cd "$dir" && "$bin" "$@" --output-format=json >out 2>err)
  rc=$?
  res=$(python3 - "$dir/out" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
if "{" not in text:
    print("none")
    sys.exit()
j = json.loads(text[text.index("{"):])["jobs"][0]
c = j.get("blkstack", {}).get("counters", {})
print(j["error"], j["write"]["total_ios"], j["write"]["io_bytes"], c.get("e4defrag_blocks_moved", "-"))
PY
)
}
for tool in fio bb; do
  d="$MNT/$tool"
  run $tool "$d" --name=e --ioengine=e4defrag --donorname=file.def --filename=file1 --size=8m \
    --filesize=8m --bs=32k --rw=write
  [ $rc = 0 ] || fail "$tool write job: exit $rc: $(cat "$d/err")"
  read -r err ios bytes moved <<<"$res"
  [ "$err/$ios/$bytes" = "0/256/8388608" ] || fail "$tool write job: $res"
  [ $tool = fio ] || [ "$moved" = 2048 ] || fail "block-bench moved $moved blocks, not 2048"
  [ -f "$d/file.def" ] || fail "$tool: no donor file"
  run $tool "$d" --name=e --ioengine=e4defrag --donorname=d2 --filename=file1 --size=8m \
    --bs=4k --rw=randwrite --inplace=1
  [ $rc = 0 ] || fail "$tool inplace job: exit $rc: $(cat "$d/err")"
  [ "$res" = "0 2048 8388608 $moved" ] || fail "$tool inplace job: $res"
  [ "$(stat -c %s "$d/d2")" = 0 ] || fail "$tool: the inplace donor is not empty"
  run $tool "$d" --name=e --ioengine=e4defrag --donorname=file.def --filename=file1 --size=8m \
    --filesize=8m --rw=read
  [ $rc = 1 ] && [ "${res%% *}" = 22 ] || fail "$tool read job: exit $rc, $res"
  run $tool "$d" --name=e --ioengine=e4defrag --filename=file1 --size=8m --rw=write
  [ $rc = 1 ] || fail "$tool without donorname: exit $rc"
  grep -q "donorname" "$d/err" || fail "$tool without donorname: $(cat "$d/err")"
  run $tool "$d" --name=e --ioengine=e4defrag --donorname=d3 --filename=file1 --size=8m --rw=write
  [ $rc = 1 ] || fail "$tool without filesize: exit $rc"
done
grep -q "fallocate of the donor file d3 (offset 0, length 0): -22" "$MNT/bb/err" ||
  fail "the donor's failed allocation: $(cat "$MNT/bb/err")"
echo "loop ext4: write 8 MiB and inplace 4k random writes run in both; read, no donorname, no filesize fail in both"

# The test's own directory: the same end in both tools.
for tool in fio bb; do
  run $tool "$T/own.$tool" --name=e --ioengine=e4defrag --donorname=file.def --filename=f \
    --size=1m --filesize=1m --bs=32k --rw=write
  eval "own_$tool=\"$rc ${res%% *}\""
done
# shellcheck disable=SC2154
[ "$own_bb" = "$own_fio" ] || fail "on $T: block-bench exit/error $own_bb, fio $own_fio"
echo "$(stat -f -c %T "$T"): both tools exit/error $own_bb"
echo PASS

#!/bin/bash
# File set-up on the binary, as fio's: a new file is laid out before a
# reading job (and the report says so), preallocated for a writing one;
# create_only sets up and does no I/O; allow_file_create=0 refuses a missing
# file; fill_device writes a small file system full and ends cleanly.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/layout.XXXXXX")"
MNT=""
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T" || fail cd

# 1. A reading job's new file is written out first, and the report says so.
"$BB" --name=r --ioengine=psync --filename=r.dat --size=4m --rw=randread --bs=4k \
  >r.txt 2>r.err || fail "randread on a new file: $(cat r.err)"
# fio's line, on standard output after the header (as fio's); stderr silent.
grep -qx "r: Laying out IO file (1 file / 4MiB)" r.txt || fail "no layout line: $(cat r.txt)"
[ ! -s r.err ] || fail "stderr on a clean run: $(cat r.err)"
grep -q "  file         : laid out 4096KiB before the job" r.txt || fail "no file line: $(grep file r.txt)"
blocks=$(stat -c %b r.dat)
[ $((blocks * 512)) -ge $((4 << 20)) ] || fail "laid-out file has holes ($blocks blocks)"
# Again: the file is there in full, nothing is said.
"$BB" --name=r --ioengine=psync --filename=r.dat --size=4m --rw=randread --bs=4k \
  >r1.txt 2>&1 || fail "second run: $(cat r1.txt)"
grep -q "Laying out" r1.txt && fail "layout line for a file already there"
"$BB" --name=r --ioengine=psync --filename=r.dat --size=4m --rw=randread --bs=4k \
  --output-format=json >r2.json 2>r2.err || fail "second run"
python3 -c "
import json
j=json.load(open('r2.json'))['jobs'][0]
f=j['blkstack'].get('file', {})
assert f.get('action', 'none') == 'none', f
assert f.get('invalidated') is True, f   # buffered: the cache was dropped" || fail "second run JSON"

# 2. A writing job's new file is preallocated.
"$BB" --name=w --ioengine=psync --filename=w.dat --size=4m --rw=randwrite --bs=4k \
  --output-format=json >w.json 2>w.err || fail "randwrite: $(cat w.err)"
python3 -c "
import json
f=json.load(open('w.json'))['jobs'][0]['blkstack']['file']
assert f['action'] in ('allocate', 'sparse'), f
assert f['bytes'] == 4 << 20, f" || fail "randwrite JSON"

# 3. create_only: set up, no I/O.
"$BB" --name=c --ioengine=psync --filename=c.dat --size=2m --rw=read --create_only=1 \
  --output-format=json >c.json 2>c.err || fail "create_only: $(cat c.err)"
[ "$(stat -c %s c.dat)" = $((2 << 20)) ] || fail "create_only did not create the file"
python3 -c "
import json
j=json.load(open('c.json'))['jobs'][0]
assert j['read']['total_ios'] == 0, j['read']['total_ios']" || fail "create_only did I/O"

# 4. allow_file_create=0
"$BB" --name=n --ioengine=psync --filename=missing.dat --size=1m --allow_file_create=0 \
  >n.txt 2>&1 && fail "allow_file_create=0 accepted a missing file"
grep -q "missing.dat: does not exist (allow_file_create=0)" n.txt || fail "message: $(cat n.txt)"
[ ! -e missing.dat ] || fail "allow_file_create=0 created the file"

# 5. fill_device on an 8 MiB tmpfs: writes until ENOSPC, exit 0, says so.
if [ "$(id -u)" != 0 ]; then
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "fill_device needs root to mount a tmpfs"
  echo "SKIPPED: fill_device case (needs root to mount a small tmpfs)"
else
  mkdir -p mnt && mount -t tmpfs -o size=8m tmpfs mnt || fail "mount tmpfs"
  MNT="$T/mnt"
  "$BB" --name=f --ioengine=psync --filename=mnt/fill --rw=write --bs=64k --fill_device=1 \
    --output-format=json >f.json 2>f.err || fail "fill_device exited $?: $(cat f.err)"
  python3 -c "
import json
j=json.load(open('f.json'))['jobs'][0]
assert j['error'] == 0 and j['total_err'] == 0, (j['error'], j['total_err'])
assert j['blkstack']['file']['filled'] is True, j['blkstack']['file']
w = j['write']['io_bytes']
assert 7 << 20 <= w <= 8 << 20, w" || fail "fill_device report: $(cat f.json | head -c 600)"
fi
echo PASS

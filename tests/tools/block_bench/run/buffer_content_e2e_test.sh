#!/usr/bin/env bash
# What block-bench writes, read back from the file: fio's buffer options.
#  * buffer_compress_percentage=50: each 512-byte chunk is random then
#    zeros, and the file compresses (zlib) like fio's on the same job;
#  * buffer_pattern: every byte is the pattern's;
#  * dedupe_percentage=50: about half the blocks repeat another;
#  * scramble_buffers (the default): 256 writes of one buffer are 256
#    different blocks; scramble_buffers=0: one; zero_buffers: zeros;
#  * a bad pattern and a missing pattern file are clear errors.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

w() {  # w FILE OPTIONS...: writes FILE sequentially, 4k blocks
  local f=$1; shift
  rm -f "$f"
  "$BB" --name=w --ioengine=psync --rw=write --bs=4k --filename="$f" "$@" >"$T/w.out" 2>&1 ||
    fail "block-bench $*: $(cat "$T/w.out")"
}

w c.dat --size=1m --buffer_compress_percentage=50
python3 - c.dat <<'PY' || fail "compress 50"
import sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 1 << 20
for c in range(0, len(d), 512):
    assert d[c + 256:c + 512] == bytes(256), c
    assert d[c:c + 256] != bytes(256), c
PY
ratio() { python3 -c "import sys,zlib; d=open(sys.argv[1],'rb').read(); print(len(zlib.compress(d, 6)) / len(d))" "$1"; }
if command -v fio >/dev/null; then
  rm -f f.dat
  fio --name=w --ioengine=psync --rw=write --bs=4k --filename=f.dat --size=1m \
    --buffer_compress_percentage=50 >"$T/fio.out" 2>&1 || fail "fio: $(cat "$T/fio.out")"
  ours=$(ratio c.dat) theirs=$(ratio f.dat)
  python3 -c "import sys; o,t=float(sys.argv[1]),float(sys.argv[2]); assert abs(o-t) < 0.05, (o,t)" "$ours" "$theirs" ||
    fail "compression ratio $ours, fio's $theirs"
  echo "compress 50: zlib ratio $ours (fio $theirs)"
elif [ -n "${BLK_TEST_NO_SKIP:-}" ]; then
  fail "fio is missing (apt install fio)"
else
  echo "SKIPPED: the comparison with fio (fio is missing)"
fi

w p.dat --size=64k --buffer_pattern='0xdeadbeef"ab"'
python3 - p.dat <<'PY' || fail "pattern"
import sys
d = open(sys.argv[1], "rb").read()
pat = bytes.fromhex("deadbeef") + b"ab"
blk = (pat * 1000)[:4096]
assert all(d[i:i + 4096] == blk for i in range(0, len(d), 4096))
PY

w d.dat --size=4m --dedupe_percentage=50
python3 - d.dat <<'PY' || fail "dedupe 50"
import sys
d = open(sys.argv[1], "rb").read()
blocks = [d[i:i + 4096] for i in range(0, len(d), 4096)]
u = len(set(blocks))
assert 1024 * 0.4 <= u <= 1024 * 0.6, u
print("dedupe 50: %d unique blocks of 1024" % u)
PY

uniq_blocks() { python3 -c "import sys; d=open(sys.argv[1],'rb').read(); print(len({d[i:i+4096] for i in range(0,len(d),4096)}))" "$1"; }
w s.dat --size=1m
[ "$(uniq_blocks s.dat)" = 256 ] || fail "scrambled: $(uniq_blocks s.dat) unique blocks of 256"
w n.dat --size=1m --scramble_buffers=0
[ "$(uniq_blocks n.dat)" = 1 ] || fail "not scrambled: $(uniq_blocks n.dat) unique blocks, expected 1"
w z.dat --size=64k --zero_buffers
cmp -s z.dat <(head -c 65536 /dev/zero) || fail "zero_buffers"

set +e
"$BB" --name=w --ioengine=null --rw=write --size=1m --buffer_pattern='0xzz' >"$T/e1" 2>&1; rc1=$?
"$BB" --name=w --ioengine=null --rw=write --size=1m --buffer_pattern="'$T/none'" >"$T/e2" 2>&1; rc2=$?
"$BB" --name=w --ioengine=null --rw=write --dedupe_percentage=50 --dedupe_mode=working_set >"$T/e3" 2>&1; rc3=$?
set -e
[ "$rc1" = 1 ] && grep -q "buffer_pattern.*0x without hex digits" "$T/e1" || fail "bad pattern: $rc1 $(cat "$T/e1")"
[ "$rc2" = 1 ] && grep -q "cannot open '$T/none'" "$T/e2" || fail "missing pattern file: $rc2 $(cat "$T/e2")"
[ "$rc3" = 1 ] && grep -q "dedupe_mode=working_set needs size= in bytes" "$T/e3" || fail "dedupe_mode: $rc3 $(cat "$T/e3")"

# The file laid out before a reading job holds the job's buffer contents,
# as fio's: the same zlib ratio with buffer_compress_percentage=60, the
# pattern with buffer_pattern.
for tool in bb fio; do
  if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
  rm -f "$T/lo.$tool" "$T/lp.$tool"
  "${cmd[@]}" --name=l --filename="$T/lo.$tool" --ioengine=psync --rw=randread --bs=4k --size=4m \
    --buffer_compress_percentage=60 --number_ios=1 >/dev/null 2>&1 || fail "$tool: compressible layout"
  "${cmd[@]}" --name=l --filename="$T/lp.$tool" --ioengine=psync --rw=randread --bs=4k --size=1m \
    --buffer_pattern=0xdeadbeef --number_ios=1 >/dev/null 2>&1 || fail "$tool: pattern layout"
done
python3 - "$T" <<'PY' || fail "laid-out contents differ from fio's"
import sys, zlib
t = sys.argv[1]
ratio = lambda p: len(zlib.compress(open(p, "rb").read())) / 4194304
bb, fio = ratio(t + "/lo.bb"), ratio(t + "/lo.fio")
assert abs(bb - fio) < 0.05 and 0.3 < bb < 0.5, (bb, fio)
p = open(t + "/lp.bb", "rb").read()
assert p == bytes.fromhex("deadbeef") * (1 << 18), p[:16].hex()
assert p == open(t + "/lp.fio", "rb").read()
PY
echo PASS

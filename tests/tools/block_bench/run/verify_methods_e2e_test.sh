#!/usr/bin/env bash
# verify= methods end to end, on a real file with O_DIRECT: for each
# method, a write job verifies every block it wrote; after one byte of the
# file is flipped, a read job with the same method fails naming the file,
# the offset and the method; reading it with another method says so.
# verify=meta checks the header only, as fio 3.33.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
F="$T/v.dat"
for m in crc32c crc32 md5 sha1 sha256 sha512 xxhash crc64 crc16 crc7 sha3-224 sha3-256 sha3-384 \
  sha3-512; do
  rm -f "$F"
  "$BB" --name=w --ioengine=libaio --direct=1 --filename="$F" --size=1m --bs=4k --rw=randwrite \
    --verify=$m > "$T/w.txt" 2>&1 || fail "$m write job: $(cat "$T/w.txt")"
  grep -q "verify       : checked=256, errors=0, not_verified=0" "$T/w.txt" ||
    fail "$m: write job verify counts: $(grep 'verify  ' "$T/w.txt")"
  # Flip the last byte of block 100 (fio 3.33's sha512 field covers only
  # the data's tail).
  at=$((100 * 4096 + 4095))
  byte=$(od -An -tu1 -j $at -N1 "$F")
  printf "\\$(printf %o $((byte ^ 0x40)))" | dd of="$F" bs=1 seek=$at conv=notrunc status=none
  "$BB" --name=r --ioengine=psync --filename="$F" --size=1m --bs=4k --rw=read --verify=$m \
    > "$T/r.txt" 2>&1 && fail "$m: a corrupt block passed"
  grep -q "verify failed on '$F' at offset 409600 length 4096: $m mismatch" "$T/r.txt" ||
    fail "$m: message: $(grep -m1 'verify failed' "$T/r.txt")"
  grep -q "verify       : checked=256, errors=1, not_verified=0" "$T/r.txt" ||
    fail "$m: counts: $(grep 'verify  ' "$T/r.txt")"
done
# A file written with xxhash (the last loop) read with md5: the header says so.
"$BB" --name=r --ioengine=psync --filename="$F" --size=8k --bs=4k --rw=read --verify=md5 \
  > "$T/x.txt" 2>&1 && fail "md5 accepted xxhash blocks"
grep -q "written with verify method" "$T/x.txt" || fail "method mismatch: $(grep -m1 'verify failed' "$T/x.txt")"

# verify=meta (fio 3.33: the header only, no data checksum): a write job
# verifies every block; a flipped data byte passes (as fio's); a corrupted
# header offset field fails naming the offset; fio's surface-scan.fio
# shape (meta, verify_pattern, verify_interval=512) writes and checks.
rm -f "$F"
"$BB" --name=w --ioengine=libaio --direct=1 --filename="$F" --size=1m --bs=4k --rw=randwrite \
  --verify=meta --output-format=json > "$T/w.json" 2>"$T/w.err" || fail "meta write job: $(cat "$T/w.err")"
python3 -c "
import json
b = json.load(open('$T/w.json'))['jobs'][0]['blkstack']
assert b['verified'] == 256 and b['verify_errors'] == 0, b" || fail "meta: write job verify counts"
python3 -c "
f = open('$F', 'r+b'); f.seek(100 * 4096 + 1000); c = f.read(1); f.seek(100 * 4096 + 1000)
f.write(bytes([c[0] ^ 0x40])); f.close()"
"$BB" --name=r --ioengine=psync --filename="$F" --size=1m --bs=4k --rw=read --verify=meta \
  > "$T/r.txt" 2>&1 || fail "meta: a data byte is not checksummed, yet: $(grep -m1 'verify failed' "$T/r.txt")"
grep -q "verify       : checked=256, errors=0, not_verified=0" "$T/r.txt" ||
  fail "meta: counts: $(grep 'verify  ' "$T/r.txt")"
# The offset field of block 7's header (bytes 16-23) made to say block 8's.
python3 -c "
import struct
f = open('$F', 'r+b'); f.seek(7 * 4096 + 16); f.write(struct.pack('<Q', 8 * 4096)); f.close()"
"$BB" --name=r --ioengine=psync --filename="$F" --size=1m --bs=4k --rw=read --verify=meta \
  > "$T/r.txt" 2>&1 && fail "meta: a corrupted header offset passed"
grep -q "verify failed on '$F' at offset 28672 length 4096: bad header offset 32768, wanted 28672" "$T/r.txt" ||
  fail "meta: message: $(grep -m1 'verify failed' "$T/r.txt")"
grep -q "verify       : checked=256, errors=1, not_verified=0" "$T/r.txt" ||
  fail "meta: counts: $(grep 'verify  ' "$T/r.txt")"
rm -f "$F"
cat > "$T/surface-scan.fio" <<EOF
[global]
thread
bs=64k
direct=1
ioengine=sync
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512
size=1m
[write-phase]
filename=$F
rw=write
do_verify=0
[verify-phase]
stonewall
create_serialize=0
filename=$F
rw=read
do_verify=1
EOF
"$BB" "$T/surface-scan.fio" > "$T/s.txt" 2>&1 || fail "surface-scan.fio: $(tail -5 "$T/s.txt")"
grep -q "verify       : checked=16, errors=0, not_verified=0" "$T/s.txt" ||
  fail "surface-scan.fio: $(grep 'verify  ' "$T/s.txt")"

# verify_backlog=16 with verify_backlog_batch 0 (= 16), 4 and 32: the same
# sequence of writes and read-backs as fio's (from write_iolog), every
# block checked once, in the same totals.
ops() { awk 'NF >= 5 { printf "%s", ($3 == "read" ? "r" : "w") }' "$1"; }
for b in 0 4 32; do
  for tool in bb fio; do
    rm -f "$T/$tool.dat" "$T/$tool.log"
    if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
    "${cmd[@]}" --name=$tool --filename="$T/$tool.dat" --ioengine=psync --rw=randwrite --bs=4k \
      --size=1m --verify=crc32c --verify_backlog=16 --verify_backlog_batch=$b \
      --write_iolog="$T/$tool.log" --output-format=json --output="$T/$tool.json" >/dev/null 2>&1 ||
      fail "$tool verify_backlog_batch=$b"
  done
  [[ "$(ops "$T/bb.log")" == "$(ops "$T/fio.log")" ]] ||
    fail "verify_backlog_batch=$b: bb $(ops "$T/bb.log" | head -c 80) fio $(ops "$T/fio.log" | head -c 80)"
  python3 - "$T" <<'PY' || fail "verify_backlog_batch=$b: counts"
import json, sys
t = sys.argv[1]
bb, fio = (json.load(open(t + "/%s.json" % n))["jobs"][0] for n in ("bb", "fio"))
for d in ("read", "write"):
    assert bb[d]["total_ios"] == fio[d]["total_ios"] == 256, (d, bb[d]["total_ios"], fio[d]["total_ios"])
assert bb["blkstack"]["verified"] == 256 and bb["blkstack"]["verify_errors"] == 0, bb["blkstack"]
PY
done
# At depth 8 on O_DIRECT libaio: every block still checked once, none bad.
"$BB" --name=d --ioengine=libaio --direct=1 --iodepth=8 --filename="$T/d.dat" --rw=randwrite \
  --bs=4k --size=2m --verify=crc32c --verify_backlog=32 --output-format=json >"$T/d.json" ||
  fail "verify_backlog at depth 8"
python3 -c "
import json
j = json.load(open('$T/d.json'))['jobs'][0]
b = j['blkstack']
assert b['verified'] == 512 and b['verify_errors'] == 0 and b['verify_not_verified'] == 0, b
assert j['read']['total_ios'] == 512, j['read']['total_ios']" || fail "verify_backlog at depth 8: counts"
echo PASS

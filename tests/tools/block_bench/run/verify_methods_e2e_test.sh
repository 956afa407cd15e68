#!/usr/bin/env bash
# verify= methods end to end, on a real file with O_DIRECT: for each
# method, a write job verifies every block it wrote; after one byte of the
# file is flipped, a read job with the same method fails naming the file,
# the offset and the method; reading it with another method says so.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
F="$T/v.dat"
for m in crc32c crc32 md5 sha1 sha256 sha512 xxhash; do
  rm -f "$F"
  "$BB" --name=w --ioengine=libaio --direct=1 --filename="$F" --size=1m --bs=4k --rw=randwrite \
    --verify=$m --output-format=json > "$T/w.json" 2>"$T/w.err" || fail "$m write job: $(cat "$T/w.err")"
  python3 -c "
import json,sys
b = json.load(open('$T/w.json'))['jobs'][0]['blkstack']
assert b['verified'] == 256 and b['verify_errors'] == 0, b" || fail "$m: write job verify counts"
  # Flip one byte in the data part of block 100 (past the 96-byte header).
  python3 -c "
f = open('$F', 'r+b'); f.seek(100 * 4096 + 1000); c = f.read(1); f.seek(100 * 4096 + 1000)
f.write(bytes([c[0] ^ 0x40])); f.close()"
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
echo PASS

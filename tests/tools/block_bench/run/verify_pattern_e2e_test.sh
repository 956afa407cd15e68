#!/usr/bin/env bash
# fio's verify_pattern, verify_interval, verify_offset, verify_only and
# verify_state_save end to end, on real files:
#  * verify=pattern writes the same bytes as fio 3.33 (cmp), for a plain,
#    a %o and a mixed pattern; a corrupted byte fails the read-back naming
#    the block and the byte's offset;
#  * verify_pattern with a checksum: the data after the header is the
#    pattern; verify_interval/verify_offset put a header per interval at
#    the offset, and a corrupted interval is named;
#  * verify_only re-checks a file an earlier run wrote without writing it
#    (its bytes unchanged), and fails naming the offset once it differs;
#  * verify_state_save=0/1 change no result, 1 saves the state, which
#    verify_state_load reads.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
flip() {  # flip one bit of byte $2 of file $1
  python3 -c "
import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); c = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([c[0] ^ 0x40])); f.close()" "$1" "$2"
}

# verify=pattern: byte for byte fio's file.
for pat in 0xdeadbeef %o '0xff%o"abcd"-12' 65536; do
  rm -f "$T/fio.dat" "$T/bb.dat"
  (cd "$T" && fio --name=p --filename="$T/fio.dat" --rw=randwrite --bs=4k --size=256k \
    --verify=pattern --verify_pattern="$pat" --verify_state_save=0 --output=/dev/null) ||
    fail "fio with $pat"
  "$BB" --name=p --filename="$T/bb.dat" --rw=randwrite --bs=4k --size=256k --verify=pattern \
    --verify_pattern="$pat" > "$T/w.txt" 2>&1 || fail "$pat: $(cat "$T/w.txt")"
  grep -q "verify       : checked=64, errors=0, not_verified=0" "$T/w.txt" || fail "$pat: counts"
  cmp "$T/fio.dat" "$T/bb.dat" || fail "$pat: block-bench's bytes differ from fio's"
done
# The last file holds 65536 = 00 00 01, repeated; check the pattern's bytes
# directly too (%o case: the offset of each block, 8 bytes).
rm -f "$T/o.dat"
"$BB" --name=o --filename="$T/o.dat" --rw=write --bs=4k --size=64k --verify=pattern \
  --verify_pattern=%o >/dev/null || fail "%o write"
python3 - "$T/o.dat" <<'PY' || fail "%o bytes"
import struct, sys
d = open(sys.argv[1], 'rb').read()
assert len(d) == 65536
for off in range(0, 65536, 4096):
    for i in range(0, 4096, 8):
        assert struct.unpack_from('<Q', d, off + i)[0] == off, (off, i)
PY
flip "$T/o.dat" $((8192 + 100))
"$BB" --name=o --filename="$T/o.dat" --rw=read --bs=4k --size=64k --verify=pattern \
  --verify_pattern=%o > "$T/r.txt" 2>&1 && fail "a corrupt pattern block passed"
grep -q "verify failed on '$T/o.dat' at offset 8192 length 4096: pattern mismatch at offset 8292 (byte 100 of the block)" "$T/r.txt" ||
  fail "pattern message: $(grep -m1 'verify failed' "$T/r.txt")"

# verify_pattern with md5, a header per 1k interval at offset 128.
J=(--name=v --filename="$T/v.dat" --rw=randwrite --bs=4k --size=256k --verify=md5
   --verify_pattern='"ab"' --verify_interval=1k --verify_offset=128)
rm -f "$T/v.dat"
"$BB" "${J[@]}" > "$T/w.txt" 2>&1 || fail "interval write: $(cat "$T/w.txt")"
grep -q "verify       : checked=64, errors=0, not_verified=0" "$T/w.txt" || fail "interval counts"
python3 - "$T/v.dat" <<'PY' || fail "interval layout"
import struct, sys
d = open(sys.argv[1], 'rb').read()
for s in range(0, len(d), 1024):
    # fio's header (magic 0xacca, type 2 = md5, length, rand_seed, offset)
    # swapped to offset 128.
    magic, typ, ln, seed, off = struct.unpack_from('<HHIQQ', d, s + 128)
    assert magic == 0xacca and typ == 2 and ln == 1024 and off == s, (s, hex(magic), typ, ln, off)
    # Outside the 56-byte header (and the bytes swapped to the start) the
    # interval is the pattern, its phase from the block's start.
    for i in range(184, 1024):
        assert d[s + i] == b'ab'[(s + i) % 2], (s, i)
PY
cp "$T/v.dat" "$T/v.orig"
# verify_only: the same job checks the file and writes nothing.
"$BB" "${J[@]}" --verify_only --verify_state_save=1 > "$T/o.txt" 2>&1 ||
  fail "verify_only on a good file: $(cat "$T/o.txt")"
grep -q "verify       : checked=64, errors=0, not_verified=0" "$T/o.txt" || fail "verify_only counts"
cmp -s "$T/v.dat" "$T/v.orig" || fail "verify_only changed the file"
# As fio's dry run, the writes it did not issue are counted as done.
grep -q "  write: IOPS=" "$T/o.txt" || fail "verify_only: no write line: $(cat "$T/o.txt")"
cmp "$T/v.dat" "$T/v.orig" || fail "verify_only changed the file"
flip "$T/v.dat" $((40960 + 2048 + 500))
"$BB" "${J[@]}" --verify_only > "$T/o.txt" 2>&1 && fail "verify_only passed a corrupt file"
grep -q "verify failed on '$T/v.dat' at offset 40960 length 4096: interval at offset 43008 length 1024: md5 mismatch" "$T/o.txt" ||
  fail "verify_only message: $(grep -m1 'verify failed' "$T/o.txt")"
grep -q "verify       : checked=64, errors=1, not_verified=0" "$T/o.txt" || fail "verify_only bad counts"

# verify_only of crc32c blocks written by another job's seed: as fio's
# verify_only, the header's rand_seed is taken as read, so they pass.
rm -f "$T/s.dat"
"$BB" --name=s --filename="$T/s.dat" --rw=write --bs=4k --size=64k --verify=crc32c >/dev/null ||
  fail "crc32c write"
"$BB" --name=s --filename="$T/s.dat" --rw=write --bs=4k --size=64k --verify=crc32c --verify_only \
  >/dev/null || fail "crc32c verify_only"
"$BB" --name=s --filename="$T/s.dat" --rw=write --bs=4k --size=64k --verify=crc32c --verify_only \
  --randseed=7 > "$T/s.txt" 2>&1 || fail "verify_only with another seed: $(grep -m1 'verify failed' "$T/s.txt")"
grep -q "verify       : checked=16, errors=0, not_verified=0" "$T/s.txt" ||
  fail "verify_only with another seed: counts"

# verify_state_save: same report either way, the state file only with 1
# (run/verify_state_e2e_test has its contents); verify_state_load reads it.
cd "$T"
for v in 0 1; do
  rm -f "$T/st.dat" local-st-0-verify.state
  "$BB" --name=st --filename="$T/st.dat" --rw=write --bs=4k --size=64k --verify=crc32c \
    --verify_state_save=$v --output-format=json > "$T/st$v.json" || fail "verify_state_save=$v"
  if (( v )); then [[ -f local-st-0-verify.state ]] || fail "verify_state_save=1 saved nothing"
  else [[ ! -f local-st-0-verify.state ]] || fail "verify_state_save=0 saved a state"; fi
done
python3 - "$T" <<'PY' || fail "verify_state_save changed the result"
import json, sys
a, b = (json.load(open(sys.argv[1] + '/st%d.json' % v))['jobs'][0] for v in (0, 1))
for k in ('verified', 'verify_errors', 'verify_not_verified'):
    assert a['blkstack'][k] == b['blkstack'][k], k
assert a['write']['total_ios'] == b['write']['total_ios'] == 16
PY
"$BB" --name=st --filename="$T/st.dat" --rw=write --bs=4k --size=64k --verify=crc32c --verify_only \
  --verify_state_load=1 > "$T/l.txt" 2>&1 || fail "verify_state_load: $(cat "$T/l.txt")"
grep -q "verify       : checked=16, errors=0, not_verified=0" "$T/l.txt" ||
  fail "verify_state_load counts: $(cat "$T/l.txt")"
echo PASS

#!/usr/bin/env bash
# Verify data interoperates with fio 3.33 (run/verify.h: fio's on-disk
# format), for every verify= method fio 3.33 has, both ways, with the real
# fio binary on small files (256 KiB, 4 KiB blocks):
#  * fio writes (--do_verify=0), block-bench verifies (rw=read with the
#    method) and checks every block; block-bench writes, fio verifies;
#  * one flipped byte fio's checksum covers (a block's last byte; meta: the
#    header's offset field) fails both tools, block-bench naming the block;
#  * verify=null checks nothing in either tool;
#  * the same with verify_interval + verify_offset, verify_pattern with a
#    checksum, verify_pattern alone (fio's header + pattern), and
#    block-bench's verify_only on a file fio wrote;
#  * verify_dump's files: fio's names, the bytes read and the bytes fio
#    wrote.
# fio is required: without it the test fails under BLK_TEST_NO_SKIP=1 (CI)
# and is skipped otherwise.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
flip() {  # FILE BYTE...: flip bits of byte BYTE of FILE, for each pair
  python3 -c "
import sys
a = sys.argv[1:]
for name, at in zip(a[::2], a[1::2]):
    f = open(name, 'r+b'); f.seek(int(at)); c = f.read(1)
    f.seek(int(at)); f.write(bytes([c[0] ^ 0x21])); f.close()" "$@"
}
SZ=(--size=256k --bs=4k)
BLOCK=$((5 * 4096))
LAST=$((BLOCK + 4095))

# The cases: name, the byte flipped (none: nothing is checked), options.
# Both tools start slowly next to a check (fio ~0.5 s): each runs every
# case as one job of a job file per phase, read back from its JSON report.
CASES=()
for m in md5 crc64 crc32 crc32c crc32c-intel crc16 crc7 sha1 sha256 sha512 sha3-224 sha3-256 \
  sha3-384 sha3-512 xxhash; do
  CASES+=("$m|$LAST|verify=$m")
done
CASES+=(
  "meta|$((BLOCK + 16))|verify=meta"  # fio's header only: its offset field corrupted
  "null|none|verify=null"
  "crc32c-interval-offset|$LAST|verify=crc32c verify_interval=1k verify_offset=100"
  "sha256-interval|$LAST|verify=sha256 verify_interval=512"
  "md5-pattern|$LAST|verify=md5 verify_pattern=0x1234567"
  "pattern-alone|$LAST|verify_pattern=0xfe%o\"ab\""
  "meta-pattern-interval|$LAST|verify=meta verify_pattern=0xaa555aa5 verify_interval=512"
)
field() { cut -d'|' -f"$2" <<<"$1"; }
# jobs PHASE PREFIX: a job file (read by both tools) with one job per case
# on $T/PREFIX-NAME.dat, writing without verifying, or reading.
jobs() {
  local phase=$1 prefix=$2 c name
  for c in "${CASES[@]}"; do
    name=$(field "$c" 1)
    printf '[%s]\nfilename=%s\nsize=256k\nbs=4k\n' "$name" "$T/$prefix-$name.dat"
    if [[ $phase == write ]]; then
      printf 'rw=randwrite\ndo_verify=0\nverify_state_save=0\n'
    else
      printf 'rw=read\n'
    fi
    tr ' ' '\n' <<<"$(field "$c" 3)"
    echo
  done
}
# errors JSON: "name error verified verify_errors" per job (fio: - -).
errors() {
  python3 -c "
import json, sys
for j in json.load(open(sys.argv[1]))['jobs']:
    b = j.get('blkstack', {})
    print(j['jobname'], j['error'], b.get('verified', '-'), b.get('verify_errors', '-'))" "$1"
}
# expect JSON KIND: each case's job as KIND says: good (no error; for
# block-bench 64 blocks checked, none bad) or bad (the flipped byte caught;
# null: good).
expect() {
  local c name byte line all
  all=$(errors "$1")
  for c in "${CASES[@]}"; do
    name=${c%%|*} byte=$(field "$c" 2)
    line=$(grep "^$name " <<<"$all" || true)
    if [[ $2 == good || $byte == none ]]; then
      [[ $line =~ ^$name\ 0\ (64\ 0|-\ -)$ ]] || fail "$1: $name: '$line', want no error"
    else
      [[ $line =~ ^$name\ [1-9][0-9]*\ (64\ 1|-\ -)$ ]] || fail "$1: $name: '$line', want the flip caught"
    fi
  done
}

rm -f "$T"/f-*.dat "$T"/b-*.dat
jobs write f > "$T/fw.fio"
jobs read f > "$T/fr.fio"
jobs write b > "$T/bw.fio"
jobs read b > "$T/br.fio"
# fio writes, block-bench verifies; block-bench writes, fio verifies.
fio --output-format=json --output="$T/1.json" "$T/fw.fio" || fail "fio write: $(head -c 600 "$T/1.json")"
"$BB" --output-format=json --output="$T/2.json" "$T/fr.fio" 2>"$T/2.err" ||
  fail "block-bench rejects fio's data: $(head -5 "$T/2.err")"
expect "$T/2.json" good
"$BB" --output-format=json --output="$T/3.json" "$T/bw.fio" 2>"$T/3.err" ||
  fail "block-bench write: $(head -5 "$T/3.err")"
fio --output-format=json --output="$T/4.json" "$T/br.fio" >/dev/null 2>"$T/4.err" ||
  fail "fio rejects block-bench's data: $(head -5 "$T/4.err")"
expect "$T/4.json" good

# One flipped byte in each file: both tools catch it (null: both pass).
flips=()
for c in "${CASES[@]}"; do
  name=$(field "$c" 1) byte=$(field "$c" 2)
  [[ $byte == none ]] || flips+=("$T/f-$name.dat" "$byte" "$T/b-$name.dat" "$byte")
done
flip "${flips[@]}"
"$BB" --output-format=json --output="$T/5.json" "$T/fr.fio" 2>"$T/5.err" &&
  fail "block-bench passed fio's corrupted files"
expect "$T/5.json" bad
for c in "${CASES[@]}"; do
  name=$(field "$c" 1) byte=$(field "$c" 2)
  [[ $byte == none ]] && continue
  grep -q "verify failed on '$T/f-$name.dat' at offset $BLOCK length 4096" "$T/5.err" ||
    fail "$name: block-bench's message: $(grep -m1 "f-$name.dat" "$T/5.err")"
done
fio --output-format=json --output="$T/6.json" "$T/br.fio" >/dev/null 2>&1 &&
  fail "fio passed block-bench's corrupted files"
expect "$T/6.json" bad

# verify_dump: a fio file (crc32c, 1k intervals) with a byte of block 5's
# second interval flipped.  block-bench writes fio's three dump files,
# named as fio 3.33 names them (fio, run on the same file, makes the same
# names): the bad interval as read and as expected (the original bytes;
# fio's own "expected" differs from them in the header's time, numberio
# and crc).
D=(--size=256k --bs=4k --verify=crc32c --verify_interval=1k)
rm -rf "$T/dump" "$T/fdump" && mkdir -p "$T/dump" "$T/fdump"
fio --name=w --filename="$T/d.dat" "${D[@]}" --rw=write --do_verify=0 --verify_state_save=0 \
  --output=/dev/null || fail "verify_dump: fio write"
cp "$T/d.dat" "$T/d.orig"
flip "$T/d.dat" $((BLOCK + 1024 + 700))
(cd "$T/dump" && "$BB" --name=r --filename="$T/d.dat" "${D[@]}" --rw=read --verify_dump=1) \
  > "$T/dump.txt" 2>&1 && fail "verify_dump: a bad block passed"
I=$((BLOCK + 1024))
grep -q "received data dumped as d.dat.$I.received; expected data dumped as d.dat.$I.expected" "$T/dump.txt" ||
  fail "verify_dump message: $(grep -m1 'verify failed' "$T/dump.txt")"
cmp <(dd if="$T/d.dat" bs=1024 skip=$((I / 1024)) count=1 status=none) "$T/dump/d.dat.$I.received" ||
  fail "verify_dump: received"
cmp <(dd if="$T/d.orig" bs=1024 skip=$((I / 1024)) count=1 status=none) "$T/dump/d.dat.$I.expected" ||
  fail "verify_dump: expected is not the block fio wrote"
# (fio 3.33 exits 0 here: a bad interval other than a block's last is
# reported and dumped, then the next interval's good result replaces it.)
(cd "$T/fdump" && fio --name=r --filename="$T/d.dat" "${D[@]}" --rw=read --verify_dump=1 \
  --output=/dev/null 2>/dev/null) || true
[[ "$(ls "$T/dump")" == "$(ls "$T/fdump")" ]] ||
  fail "verify_dump names: block-bench $(ls "$T/dump" | tr '\n' ' '), fio $(ls "$T/fdump" | tr '\n' ' ')"

# block-bench's verify_only on fio's file: as fio, the header's rand_seed
# is taken as read (the blocks are fio's, not block-bench's generation).
rm -f "$T/f.dat"
fio --name=w --filename="$T/f.dat" "${SZ[@]}" --rw=randwrite --do_verify=0 --verify_state_save=0 \
  --verify=xxhash --output=/dev/null || fail "verify_only: fio write"
"$BB" --name=w --filename="$T/f.dat" "${SZ[@]}" --rw=randwrite --verify=xxhash --verify_only \
  > "$T/vo.txt" 2>&1 || fail "verify_only on fio's file: $(grep -m2 'verify failed\|error' "$T/vo.txt")"
grep -q "verify       : checked=64, errors=0, not_verified=0" "$T/vo.txt" ||
  fail "verify_only counts: $(grep 'verify  ' "$T/vo.txt")"
# verify_only with loops=3, as fio's: a dry run and a read-back per loop,
# the same reads in the same order, and the dry run's writes counted as
# done in the JSON (fio's t/verify_state_save.py checks them).
for t in fio bb; do
  if [[ $t == fio ]]; then tool=fio; else tool="$BB"; fi
  rm -f "$T/vo-$t.log"
  "$tool" --name=w --filename="$T/f.dat" "${SZ[@]}" --rw=randwrite --verify=xxhash --verify_only \
    --loops=3 --write_iolog="$T/vo-$t.log" --output-format=json --output="$T/vo-$t.json" \
    2>"$T/vo-$t.err" || fail "$t verify_only loops=3: $(cat "$T/vo-$t.err")"
  awk '$3 == "read" || $3 == "write" { print $3, $4, $5 }' "$T/vo-$t.log" > "$T/vo-$t.seq"
done
[[ -s "$T/vo-fio.seq" ]] && cmp -s "$T/vo-fio.seq" "$T/vo-bb.seq" ||
  fail "verify_only loops=3 I/O: fio $(wc -l < "$T/vo-fio.seq"), block-bench $(wc -l < "$T/vo-bb.seq")"
python3 - "$T/vo-fio.json" "$T/vo-bb.json" <<'PY' || fail "verify_only loops=3 counts"
import json, sys
f, b = (json.load(open(p))["jobs"][0] for p in sys.argv[1:])
for d in ("read", "write"):
    for k in ("total_ios", "io_bytes"):
        assert f[d][k] == b[d][k] and f[d][k] > 0, (d, k, f[d][k], b[d][k])
    assert f[d]["clat_ns"]["N"] == b[d]["clat_ns"]["N"], d
print("verify_only loops=3: reads and writes as fio's")
PY
# The dry run has no syncs, pacing or think time, and the runtime does not
# cut it short (fio's do_dry_run issues nothing and checks no clock).
"$BB" --name=w --filename="$T/f.dat" "${SZ[@]}" --rw=randwrite --verify=xxhash --verify_only \
  --fsync=4 --thinktime=100ms --runtime=1 --output-format=json --output="$T/vo-dry.json" \
  2>"$T/vo-dry.err" || fail "verify_only fsync/thinktime: $(cat "$T/vo-dry.err")"
python3 - "$T/vo-dry.json" <<'PY' || fail "verify_only's dry run synced, slept or stopped"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["sync"]["total_ios"] == 0, j["sync"]
assert j["write"]["total_ios"] == 64 and j["read"]["total_ios"] == 64, (j["write"]["total_ios"], j["read"]["total_ios"])
print("verify_only: no sync, no think time, all 64 blocks read back")
PY
echo PASS

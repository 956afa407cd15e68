#!/usr/bin/env bash
# log_store_compressed=1 writes the logs as fio 3.33 stores them compressed
# (<prefix>_<kind>.N.log.fz), and fio reads them back: `fio --inflate-log`
# prints one line per I/O with the columns of the plain log (with
# log_offset and log_prio too), whose values are the run's (their sum is
# the JSON's clat/lat mean times N); the samples decoded here with Python's
# zlib print the same lines as fio does; an empty log (no slat on psync) is
# an empty file, as fio's; block-bench's --inflate-log prints fio's lines,
# also of a file cut short.  fio is required (skip, or fail under
# BLK_TEST_NO_SKIP).
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
head -c 2M /dev/urandom > data.img

check() {  # check PREFIX KIND JSONKEY COLUMNS
  fio --inflate-log="$1_$2.1.log.fz" > "$1_$2.txt" 2>"$1.err" || fail "fio --inflate-log $1_$2: $(cat "$1.err")"
  # block-bench's --inflate-log prints what fio's does.
  "$BB" --inflate-log="$1_$2.1.log.fz" > "$1_$2.bb.txt" 2>"$1.err" || fail "block-bench --inflate-log $1_$2: $(cat "$1.err")"
  cmp -s "$1_$2.txt" "$1_$2.bb.txt" || fail "--inflate-log $1_$2: block-bench's lines differ from fio's: $(diff "$1_$2.txt" "$1_$2.bb.txt" | head -4)"
  python3 - "$@" <<'PY' || fail "$1 $2"
import json, struct, sys, zlib
prefix, kind, key, cols = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = [l.strip() for l in open("%s_%s.txt" % (prefix, kind)) if l.strip()]
r = json.load(open(prefix + ".json"))["jobs"][0]
n = r["read"]["total_ios"] + r["write"]["total_ios"]
assert len(lines) == n and n > 100, (len(lines), n)
rows = [l.split(", ") for l in lines]
assert all(len(x) == cols for x in rows), rows[:2]
tot = sum(int(x[1]) for x in rows)
want = sum(r[d][key]["mean"] * r[d][key]["N"] for d in ("read", "write"))
assert abs(tot - want) <= 1e-6 * want + 2, (tot, want)
# Our own decoding of fio's sample layout gives the lines fio printed.
data, raw = open("%s_%s.1.log.fz" % (prefix, kind), "rb").read(), b""
while data:
    o = zlib.decompressobj()
    raw += o.decompress(data)
    data = o.unused_data
size = 40 if cols == 6 else 32
mine = []
for i in range(0, len(raw), size):
    t, v, dd, prio, _, bs = struct.unpack_from("<QQIHHQ", raw, i)
    p = "0x%04x" % prio if dd & 0x40000000 else str(1 if prio >> 13 == 1 else 0)
    f = [t, v, dd & 0xffff, bs] + ([struct.unpack_from("<Q", raw, i + 32)[0]] if dd & 0x80000000 else [])
    mine.append(", ".join(str(x) for x in f) + ", " + p)
assert mine == lines, (mine[:2], lines[:2])
print("%s_%s: %d lines, %d columns" % (prefix, kind, len(lines), cols))
PY
}

"$BB" --name=j --filename=data.img --ioengine=psync --rw=randrw --bs=4k --size=2M --io_size=1M \
  --write_lat_log=a --log_store_compressed=1 --output-format=json --output=a.json || fail "run a"
check a clat clat_ns 5
check a lat lat_ns 5
[[ -e a_slat.1.log.fz && ! -s a_slat.1.log.fz && ! -e a_clat.1.log ]] || fail "files: $(ls -l a_*)"

"$BB" --name=j --filename=data.img --ioengine=libaio --direct=1 --iodepth=4 --rw=randread --bs=4k --size=2M \
  --io_size=1M --write_lat_log=b --log_offset=1 --log_prio=1 --prio=2 --log_compression=64k \
  --log_store_compressed=1 --output-format=json --output=b.json 2>/dev/null || fail "run b"
check b clat clat_ns 6
check b slat slat_ns 6
grep -q ', 0x4002$' b_clat.txt || fail "log_prio: $(head -1 b_clat.txt)"

# --inflate-log of a file cut short prints the whole samples before the cut,
# as fio's, and fails naming the file; a missing file or one that is not
# zlib fails too.
head -c $(( $(stat -c %s b_clat.1.log.fz) / 2 )) b_clat.1.log.fz > cut.fz
fio --inflate-log=cut.fz > cut.fio 2>/dev/null || true
if "$BB" --inflate-log=cut.fz > cut.bb 2>cut.err; then fail "--inflate-log of a cut file: exit 0"; fi
grep -q "cut.fz: cut short" cut.err || fail "--inflate-log cut: $(cat cut.err)"
[ -s cut.bb ] && cmp -s cut.fio cut.bb || fail "--inflate-log cut: $(wc -l < cut.bb) lines, fio $(wc -l < cut.fio)"
if "$BB" --inflate-log=missing.fz 2>err.txt; then fail "--inflate-log of a missing file: exit 0"; fi
grep -q "missing.fz: .*No such file" err.txt || fail "--inflate-log missing: $(cat err.txt)"
if "$BB" --inflate-log=b_clat.txt >/dev/null 2>err.txt; then fail "--inflate-log of a text file: exit 0"; fi
grep -q "b_clat.txt: cut short, or not a log" err.txt || fail "--inflate-log text: $(cat err.txt)"
echo PASS

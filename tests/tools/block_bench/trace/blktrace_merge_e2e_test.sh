#!/bin/bash
# merge_blktrace_file=, merge_blktrace_scalars=, merge_blktrace_iters= and
# --merge-blktrace-only on the binary: the merged file equals what this
# script computes from fio's documented rule (HOWTO "I/O Replay - Merging
# Traces": queue events of a read, write or discard, times scaled per
# file, passes one after another, in time order, payloads dropped), the
# job replays the merge (its I/O count is the merge's record count), and
# the errors.  fio 3.33 writes an empty file for every merge ("fio: iolog
# short read"); that is pinned here, and should a fio write a merge, its
# bytes must equal block-bench's.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/merge.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

# Two traces as blktrace writes them: a notify record, then per I/O a
# queue, issue and complete event; b in big-endian order with payloads.
python3 - <<'PY' || fail "making the traces"
import struct
def rec(order, t, sector, nbytes, action, dev, pdu=b""):
    return struct.pack(order + "IIQQIIIIIHH", 0x65617407, 0, t, sector, nbytes, action, 42, dev, 0,
                       0, len(pdu)) + pdu
def trace(name, order, start, step, n, dev, pdu):
    out = rec(order, 0, 0, 0, (1 << 10) << 16, dev, b"process\0")
    for i in range(n):
        t = start + i * step
        cat = 1 << 1 if i % 3 == 0 else 1 << 0   # write, else read
        if i % 7 == 6: cat = 1 << 13              # a discard
        out += rec(order, t, 8 * i, 4096, (cat << 16) | 1, dev, pdu)
        out += rec(order, t + 100, 8 * i, 4096, (cat << 16) | 7, dev)
        out += rec(order, t + 5000, 8 * i, 4096, (cat << 16) | 8, dev)
    open(name, "wb").write(out)
trace("a.bin", "<", 1000, 100000, 20, 8 << 20, b"")
trace("b.bin", ">", 30000, 70000, 15, (8 << 20) | 16, b"abcd")
PY

# expect OUT FILE:SCALAR:ITERS...: the merge by the documented rule.
expect() {
  python3 - "$@" <<'PY'
import struct, sys
out, specs = sys.argv[1], sys.argv[2:]
cursors = []
for spec in specs:
    name, scalar, iters = spec.split(":")
    d = open(name, "rb").read()
    order = "<" if struct.unpack("<I", d[:4])[0] >> 8 == 0x656174 else ">"
    recs, pos = [], 0
    while pos < len(d):
        f = list(struct.unpack(order + "IIQQIIIIIHH", d[pos:pos + 48]))
        pos += 48 + f[10]
        recs.append(f)
    length = recs[-1][2]
    kept = [f for f in recs if f[5] & 0xffff == 1 and (f[5] >> 16) & (1 | 2 | 1 << 13)]
    events = []
    for p in range(int(iters)):
        for f in kept:
            g = list(f)
            g[2] = min((f[2] + p * length) * int(scalar) // 100, 2**64 - 1)
            g[10] = 0
            events.append(g)
    cursors.append(events)
merged = []
heads = [0] * len(cursors)
live = [i for i in range(len(cursors)) if cursors[i]]
while live:
    k = min(range(len(live)), key=lambda j: (cursors[live[j]][heads[live[j]]][2], j))
    i = live[k]
    merged.append(cursors[i][heads[i]])
    heads[i] += 1
    if heads[i] == len(cursors[i]):
        live[k] = live[-1]
        live.pop()
open(out, "wb").write(b"".join(struct.pack("<IIQQIIIIIHH", *f) for f in merged))
print(len(merged))
PY
}

# records FILE: the number of 48-byte records.
records() { echo $(( $(stat -c %s "$1") / 48 )); }

# FILES|SCALARS|ITERS|what expect() merges (FILE:SCALAR:ITERS each).
for c in "a.bin|||a.bin:100:1" "a.bin:b.bin|||a.bin:100:1 b.bin:100:1" \
         "a.bin:b.bin|50:100|2:1|a.bin:50:2 b.bin:100:1" \
         "b.bin:a.bin|100:300|1:3|b.bin:100:1 a.bin:300:3"; do
  IFS='|' read -r files sc it want <<<"$c"
  spec="$files scalars=$sc iters=$it"
  args=(--name=m --ioengine=null --size=1g --read_iolog="$files" --merge_blktrace_file=m.bin)
  [ -n "$sc" ] && args+=(--merge_blktrace_scalars="$sc")
  [ -n "$it" ] && args+=(--merge_blktrace_iters="$it")
  # shellcheck disable=SC2086
  n=$(expect want.bin $want) || fail "expect $want"
  rm -f m.bin
  "$BB" "${args[@]}" --merge-blktrace-only >out.txt 2>&1 || fail "$spec: $(cat out.txt)"
  [ ! -s out.txt ] || fail "$spec: --merge-blktrace-only printed: $(cat out.txt)"
  cmp -s m.bin want.bin || fail "$spec: the merge differs from the documented rule ($(records m.bin) records, $n expected)"
  echo "$spec: $n records, as documented"
  # fio 3.33's merge of the same job.
  rm -f fio.bin
  fio "${args[@]/m.bin/fio.bin}" --merge-blktrace-only >fio.txt 2>&1
  if [ -s fio.bin ]; then
    cmp -s fio.bin m.bin || fail "$spec: fio wrote a merge ($(records fio.bin) records) unlike block-bench's"
  else
    grep -q "fio: iolog short read" fio.txt || fail "$spec: fio's empty merge without its message: $(cat fio.txt)"
  fi
  # The job replays the merge: every record once, and the merge is written again.
  rm -f m.bin
  # Two devices in the merge: replay_redirect= takes them all, as fio.
  "$BB" "${args[@]}" --replay_redirect=/dev/null --output-format=json --output=run.json >out.txt 2>&1 ||
    fail "$spec run: $(cat out.txt)"
  cmp -s m.bin want.bin || fail "$spec: the run's merge differs"
  ios=$(python3 -c 'import json; j=json.load(open("run.json"))["jobs"][0]; print(sum(j[d]["total_ios"] for d in ("read","write","trim")))')
  [ "$ios" = "$n" ] || fail "$spec: the run issued $ios I/Os, the merge has $n"
done

# Errors: the lists' length, no read_iolog, not a blktrace; nothing written.
rm -f m.bin
"$BB" --name=m --ioengine=null --read_iolog=a.bin:b.bin --merge_blktrace_file=m.bin \
  --merge_blktrace_scalars=50 --merge-blktrace-only >err.txt 2>&1 && fail "one scalar for two files"
grep -q "merge_blktrace_scalars(1) != nr_logs(2)" err.txt || fail "scalars count: $(cat err.txt)"
[ ! -e m.bin ] || fail "a failed merge left m.bin"
"$BB" --name=m --ioengine=null --size=1m --merge_blktrace_file=m.bin >err.txt 2>&1 && fail "no read_iolog"
grep -q "merge_blktrace_file=m.bin needs read_iolog" err.txt || fail "no read_iolog: $(cat err.txt)"
printf "0 0 R 0 4096\n%.0s" 1 2 3 4 5 6 > notbt.txt
"$BB" --name=m --ioengine=null --read_iolog=notbt.txt --merge_blktrace_file=m.bin \
  --merge-blktrace-only >err.txt 2>&1 && fail "a text file merged"
grep -q "notbt.txt: record 0 at byte 0: .*not a blktrace" err.txt || fail "not a blktrace: $(cat err.txt)"
"$BB" --name=m --merge_blktrace_iters=0 --ioengine=null >err.txt 2>&1 && fail "iters=0 taken"
grep -q "merge_blktrace_iters" err.txt || fail "iters=0: $(cat err.txt)"
echo PASS

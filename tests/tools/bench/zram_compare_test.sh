#!/usr/bin/env bash
# tools/bench/zram_compare.sh end to end, small: a regular file in
# TEST_TMPDIR stands for zram (SIZE_MB=8), 1 s runs, 2 rounds, QD 1 and 4,
# then the same-command-line part on one read and one write cell.  Checks
# what the benchmark promises, not its numbers (a timed test would be a
# benchmark):
#   * the target holds data before the first read: created by the script,
#     2 x SIZE_MB, random (does not compress);
#   * fio is tuned for peak in the speed part: every fio run carries
#     --iodepth_batch_submit=QD, --iodepth_batch_complete_max=QD and
#     --userspace_reap=1 for its QD, one run per variant per round, and the
#     order alternates (round 1 is round 0 reversed);
#   * the same-command-line part gives both tools one line with no batching
#     option, block-bench's plus --fio_defaults, writes past the reads' region;
#   * the tables: a best-each-side row with a ratio per QD, and a checked
#     row (✓/✗ for IOPS, clat, slat) per cell.
# Skipped (with a note; failed under BLK_TEST_NO_SKIP) without fio or where
# TEST_TMPDIR takes no O_DIRECT (tmpfs).
set -euo pipefail
R="$TEST_SRCDIR/$TEST_WORKSPACE"
SCRIPT="$R/tools/bench/zram_compare.sh"
BB="$R/tools/block_bench/block_bench"
skip() {
  echo "SKIPPED: $*"
  [ -z "${BLK_TEST_NO_SKIP:-}" ] || { echo "FAIL: BLK_TEST_NO_SKIP set"; exit 1; }
  exit 0
}
command -v fio >/dev/null || skip "no fio"
D="$TEST_TMPDIR/zc"
mkdir -p "$D"
dd if=/dev/zero of="$D/probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null ||
  skip "no O_DIRECT in $D"
rm -f "$D/probe"
DEV="$D/target"
[ ! -e "$DEV" ]
fail() { echo "FAIL: $*"; exit 1; }

DEV="$DEV" SIZE_MB=8 SECS=1 ROUNDS=2 QDS="1 4" BB="$BB" RAW="$D/raw.jsonl" \
  VARIANTS="bb libaio,bb libaio fio-tuned,fio libaio,fio libaio spin" \
  DEFAULT_CELLS="randread:4k:1 write:128k:2" \
  "$SCRIPT" >"$D/out.md" 2>"$D/err.txt" || { cat "$D/err.txt"; fail "zram_compare.sh exited $?"; }
cat "$D/out.md"

size=$(stat -c %s "$DEV")
[ "$size" -ge $((16 << 20)) ] || fail "target is $size bytes, not 2 x 8 MiB"
packed=$(gzip -c "$DEV" | wc -c)
[ "$packed" -ge $((size * 9 / 10)) ] || fail "target compresses to $packed of $size bytes: not random data"

python3 - "$D/raw.jsonl" "$D/out.md" <<'PY'
import json, re, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
out = open(sys.argv[2]).read()
def fail(m): sys.exit("FAIL: " + m)
def opt(cmd, name):
    return next((a.split("=", 1)[1] for a in cmd if a.startswith(f"--{name}=")), None)
# The speed part comes first: 4 variants x 2 rounds x 2 QDs.
speed = runs[:16]
fio_runs = [r for r in speed if r["cmd"][0].endswith("fio")]
if len(fio_runs) != 8: fail(f"{len(fio_runs)} fio runs in the speed part, want 8")
for r in fio_runs:
    qd = opt(r["cmd"], "iodepth")
    for name, want in (("iodepth_batch_submit", qd), ("iodepth_batch_complete_max", qd),
                       ("userspace_reap", "1")):
        if opt(r["cmd"], name) != want:
            fail(f"speed-part fio run without --{name}={want}: {' '.join(r['cmd'])}")
def variant(r):
    return (r["cmd"][0].rsplit("/", 1)[-1], opt(r["cmd"], "iodepth_batch_complete_min"),
            opt(r["cmd"], "iodepth_batch_submit"))
for q in range(2):
    r0 = [variant(r) for r in speed[q * 8:q * 8 + 4]]
    r1 = [variant(r) for r in speed[q * 8 + 4:q * 8 + 8]]
    if r1 != r0[::-1]: fail(f"round 1 is not round 0 reversed: {r0} / {r1}")
    if len(set(r0)) != 4: fail(f"a variant ran twice in a round: {r0}")
dflt = runs[16:]
if len(dflt) != 8: fail(f"{len(dflt)} runs in the same-command-line part, want 8")
for a, b in zip(dflt[0::2], dflt[1::2]):
    x, y = sorted((a["cmd"], b["cmd"]), key=lambda c: "--fio_defaults" in c)
    if [c for c in y if c != "--fio_defaults"][1:] != x[1:] or "--fio_defaults" not in y:
        fail(f"not the same line plus --fio_defaults: {x} / {y}")
    if any(c.startswith("--iodepth_batch") or c.startswith("--userspace_reap") for c in x):
        fail(f"a tuning option in the fio-defaults line: {x}")
    if opt(x, "rw") == "write" and opt(x, "offset") != "8m":
        fail(f"the writes overlap the reads' region: {x}")
for qd in (1, 4):
    if not re.search(rf"^\| {qd} \| bb [^|]+\| fio [^|]+\| [0-9.]+x \|", out, re.M):
        fail(f"no best-each-side ratio row for QD {qd}")
for cell in (r"randread 4k \| 1", r"write 128k \| 2"):
    if not re.search(rf"^\| {cell} \|.*[✓✗] \|.*[✓✗] \|.*[✓✗] \|", out, re.M):
        fail(f"no checked row for {cell}")
print("PASS")
PY

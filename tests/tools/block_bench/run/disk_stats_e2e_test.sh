#!/usr/bin/env bash
# fio's "Disk stats" end to end: a job on a block device (a loop device over
# a /dev/shm file) reports the device's counters over the run in text
# (fio's line), JSON ("disk_util") and terse (9 fields per disk); a job on
# tmpfs or the null driver, on no block device, reports none.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }

IMG=$(mktemp /dev/shm/disk_stats_e2e.XXXXXX)
LOOP=""
cleanup() { [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -f "$IMG"; }
trap cleanup EXIT
truncate -s 64M "$IMG"
if ! LOOP=$(losetup -f --show "$IMG" 2>"$T/losetup.err"); then
  LOOP=""
  [[ -n "${BLK_TEST_NO_SKIP:-}" ]] && fail "losetup: $(cat "$T/losetup.err")"
  echo "SKIPPED: no loop device: $(cat "$T/losetup.err")"; exit 0
fi
NAME=$(basename "$LOOP")
JOB=(--name=d --filename="$LOOP" --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --size=4m)

"$BB" "${JOB[@]}" > "$T/text" 2>/dev/null || fail "text run"
grep -q '^Disk stats (read/write):$' "$T/text" || fail "no Disk stats section: $(tail -5 "$T/text")"
grep -Eq "^  $NAME: ios=[0-9]+/[0-9]+, merge=[0-9]+/[0-9]+, ticks=[0-9]+/[0-9]+, in_queue=[0-9]+, util=[0-9]+\.[0-9]{2}%$" "$T/text" ||
  fail "disk line: $(grep "$NAME" "$T/text")"
writes=$(sed -n "s/^  $NAME: ios=[0-9]*\/\([0-9]*\),.*/\1/p" "$T/text")
# 1024 O_DIRECT writes of 4 KiB; the block layer may merge neighbours.
(( writes > 0 && writes <= 1024 + 16 )) || fail "write ios $writes for 1024 writes"

"$BB" "${JOB[@]}" --output-format=json,terse --output="$T/both" 2>/dev/null || fail "json,terse run"
python3 - "$T/both" "$NAME" <<'PY' || fail "JSON / terse disk fields"
import json, sys
text = open(sys.argv[1]).read()
start = text.index("{")  # fio's order: the terse line, then the JSON document
doc, end = json.JSONDecoder().raw_decode(text[start:])
d = doc["disk_util"]
assert len(d) == 1 and d[0]["name"] == sys.argv[2], d
assert 0 < d[0]["write_ios"] <= 1040 and 0.0 <= d[0]["util"] <= 100.0, d
assert set(d[0]) == {"name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks",
                     "write_ticks", "in_queue", "util"}, d[0].keys()
f = text[:start].strip().split(";")
assert len(f) == 121 + 9, len(f)
assert f[121] == sys.argv[2] and int(f[123]) == d[0]["write_ios"], f[121:]
assert f[129] == "%3.2f%%" % d[0]["util"], (f[129], d[0]["util"])
PY

# No block device: no section, no "disk_util".
for target in --filename=/dev/shm/disk_stats_e2e.tmpfs.$$ --ioengine=null; do
  "$BB" --name=n "$target" --rw=write --bs=4k --size=1m --output-format=json,normal --output="$T/none" \
    2>/dev/null || fail "run on $target"
  grep -q 'Disk stats' "$T/none" && fail "Disk stats for $target"
  grep -q '"disk_util"' "$T/none" && fail "disk_util for $target"
done
rm -f /dev/shm/disk_stats_e2e.tmpfs.$$
echo PASS

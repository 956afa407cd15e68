#!/usr/bin/env bash
# verify_async=N and verify_async_cpus end to end, on a real file with
# O_DIRECT: the checks run on N threads of their own (named JOB-verifyI),
# with the same results as inline verification:
#  * a write job verifies every block it wrote, with and without
#    verify_async, at iodepth 1 and 16;
#  * after one block of the file is corrupted, a read job reports that
#    block exactly as with verify_async=0 (message, counts, exit status);
#    with three corrupted blocks, the same counts;
#  * fio 3.33 fails the same file with verify_async=2 too;
#  * continue_on_error=verify with verify_fatal=1 stops at the first bad
#    block, as fio 3.33 does;
#  * verify_async_cpus binds the threads (a CPU the machine lacks is
#    refused naming the option); bad values name file, line and option.
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
# The verify counts, the error and the reads of a JSON report, one line.
summary() {
  python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))['jobs'][0]
b = j['blkstack']
print(b['verified'], b['verify_errors'], b['verify_not_verified'], j['error'],
      j['read']['total_ios'], j['write']['total_ios'], b.get('error_message', ''))
PY
}
F="$T/v.dat"
CPU=$(python3 -c "import os; print(max(os.sched_getaffinity(0)))")

# Write jobs: every block verified, with or without the threads.
for depth in 1 16; do
  for n in 0 1 3; do
    rm -f "$F"
    "$BB" --name=w --ioengine=libaio --direct=1 --iodepth=$depth --filename="$F" --size=1m \
      --bs=4k --rw=randwrite --verify=crc32c --verify_async=$n --verify_async_cpus=$CPU \
      --output-format=json > "$T/w$n.json" 2>"$T/w.err" || fail "write job, verify_async=$n: $(cat "$T/w.err")"
    s=$(summary "$T/w$n.json")
    [[ "$s" == "256 0 0 0 256 256 " ]] || fail "write job depth $depth verify_async=$n: $s"
  done
done

# One corrupted block read back: reported exactly as inline.
flip "$F" $((100 * 4096 + 2000))
for engine in "--ioengine=psync" "--ioengine=libaio --iodepth=8"; do
  for n in 0 1 4; do
    # shellcheck disable=SC2086
    "$BB" --name=r $engine --direct=1 --filename="$F" --size=1m --bs=4k --rw=read \
      --verify=crc32c --verify_async=$n --output-format=json > "$T/r$n.json" 2>"$T/r$n.err" &&
      fail "$engine verify_async=$n: a corrupt block passed"
    grep -q "verify failed on '$F' at offset 409600 length 4096: crc32c mismatch" "$T/r$n.err" ||
      fail "$engine verify_async=$n: message: $(cat "$T/r$n.err")"
  done
  s0=$(summary "$T/r0.json")
  [[ "$s0" == "256 1 0 84 256 0 verify failed on '$F' at offset 409600 length 4096: crc32c mismatch"* ]] ||
    fail "$engine inline: $s0"
  for n in 1 4; do
    [[ "$(summary "$T/r$n.json")" == "$s0" ]] || fail "$engine verify_async=$n: $(summary "$T/r$n.json") vs inline $s0"
    cmp -s "$T/r0.err" "$T/r$n.err" || fail "$engine verify_async=$n: stderr differs: $(diff "$T/r0.err" "$T/r$n.err")"
  done
done
# fio itself fails the file with verify_async=2 (its own words).
fio --name=r --filename="$F" --size=1m --bs=4k --rw=read --verify=crc32c --verify_async=2 \
  --verify_state_save=0 --output="$T/fio.txt" 2>"$T/fio.err" || true
grep -q "crc32c: verify failed at file $F offset 409600" "$T/fio.err" "$T/fio.txt" ||
  fail "fio did not find the block: $(cat "$T/fio.err")"

# Three corrupted blocks: the same counts either way.
flip "$F" $((3 * 4096 + 100))
flip "$F" $((200 * 4096 + 4000))
for n in 0 2; do
  "$BB" --name=r --ioengine=libaio --iodepth=8 --direct=1 --filename="$F" --size=1m --bs=4k \
    --rw=read --verify=crc32c --verify_async=$n --output-format=json > "$T/m$n.json" 2>/dev/null &&
    fail "verify_async=$n: corrupt blocks passed"
  s=$(summary "$T/m$n.json")
  [[ "$s" == "256 3 0 84 256 0 verify failed on '$F' at offset "* ]] || fail "three blocks, verify_async=$n: $s"
done

# continue_on_error=verify with verify_fatal=1 stops at the first bad block
# (block 3), as fio 3.33 does (its reads end there too).
"$BB" --name=r --ioengine=psync --filename="$F" --size=1m --bs=4k --rw=read --verify=crc32c \
  --continue_on_error=verify --verify_fatal=1 --output-format=json > "$T/cf.json" 2>/dev/null || true
s=$(summary "$T/cf.json")
[[ "$s" == "4 1 0 "*" 4 0 "* ]] || fail "continue_on_error=verify verify_fatal=1: $s"
fio --name=r --filename="$F" --size=1m --bs=4k --rw=read --verify=crc32c --verify_state_save=0 \
  --continue_on_error=verify --verify_fatal=1 --output-format=json --output="$T/fio.json" \
  >/dev/null 2>&1 || true
python3 - "$T/fio.json" <<'PY' || fail "fio continue_on_error=verify verify_fatal=1"
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index('{'):])['jobs'][0]
assert j['read']['total_ios'] == 4 and j['total_err'] == 1, (j['read']['total_ios'], j['total_err'])
PY

# verify_async_cpus: a CPU the machine lacks; a malformed list; verify_async
# not a number.  Errors name the option (and the job file's line).
NCPU=$(getconf _NPROCESSORS_CONF)
"$BB" --name=r --filename="$F" --size=64k --bs=4k --rw=read --verify=crc32c --verify_async=2 \
  --verify_async_cpus=$NCPU > "$T/c.txt" 2>&1 && fail "CPU $NCPU accepted"
grep -q "verify_async_cpus ($NCPU): cannot run the verify threads there" "$T/c.txt" ||
  fail "missing CPU: $(cat "$T/c.txt")"
printf '[r]\nfilename=%s\nsize=64k\nrw=read\nverify=crc32c\nverify_async_cpus=3-1\n' "$F" > "$T/bad.fio"
"$BB" "$T/bad.fio" > "$T/b.txt" 2>&1 && fail "verify_async_cpus=3-1 accepted"
grep -q "bad.fio.*6.*verify_async_cpus.*goes backwards" "$T/b.txt" || fail "bad list: $(cat "$T/b.txt")"
printf '[r]\nfilename=%s\nsize=64k\nrw=read\nverify=crc32c\nverify_async=two\n' "$F" > "$T/bad2.fio"
"$BB" "$T/bad2.fio" > "$T/b2.txt" 2>&1 && fail "verify_async=two accepted"
grep -q "bad2.fio.*6.*verify_async" "$T/b2.txt" || fail "bad number: $(cat "$T/b2.txt")"
echo PASS

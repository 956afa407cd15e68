#!/usr/bin/env bash
# verify_state_save / verify_state_load with fio 3.33 (run/features/
# verify_state.h), on a 1 MiB file of 4 KiB blocks of which a job writes
# only 16 (number_ios=16):
#  * block-bench's state file is fio's byte for byte (same job, psync):
#    version 3, crc32c, numberio 16, the last completed offset; parsed here;
#  * fio's verify_only + verify_state_load=1 on block-bench's file and state
#    checks exactly the 16 blocks (without the state it fails on the first
#    unwritten block); the reverse with fio's file and state;
#  * verify_only re-saves the state as fio's dry run does (256 writes);
#  * iodepth=4 random writes: 4 entries, each among the offsets written
#    (block-bench's write_iolog);
#  * numjobs=2 saves one file per clone, named as fio names them;
#    --aux-path puts it there;
#  * a job stopped by SIGINT saves how far it got; fio checks that far;
#  * a missing or corrupt state fails the job, naming the file.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
cd "$T"
J=(--name=w --filename=d.img --size=1m --bs=4k --rw=write --verify=crc32c --ioengine=psync)
ST=local-w-0-verify.state

# state FILE: "numberio depth nofiles index name n off,off,..." after checking
# the version, the size and fio's crc32c (init ~0, no final inversion).
state() {
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
ver, size, crc = struct.unpack_from('<QQQ', b, 0)
assert ver == 3, ver
assert size == len(b) - 24, (size, len(b))
c = 0xffffffff
for x in b[24:]:
    c ^= x
    for _ in range(8):
        c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
assert c == crc, (hex(c), hex(crc))
l = b[24:]
n, depth, nofiles, numberio, index = struct.unpack_from('<QIIQQ', l, 0)
name = l[88:152].split(b'\0')[0].decode()
offs = [struct.unpack_from('<QQ', l, 152 + 16 * i) for i in range(n)]
assert all(f < nofiles for f, _ in offs), offs
print(numberio, depth, nofiles, index, name, n, ','.join(str(o) for _, o in offs))
PY
}
reads() { python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]; print(j['read']['total_ios'])" "$1"; }

# 1. block-bench saves; the state is fio's.
rm -f d.img "$ST"
"$BB" "${J[@]}" --number_ios=16 --do_verify=0 >bb.out 2>bb.err || fail "block-bench write: $(cat bb.err)"
[[ -f $ST ]] || fail "block-bench wrote no $ST: $(ls)"
got=$(state "$ST") || fail "block-bench's state does not parse"
[[ "$got" == "16 1 1 0 w 1 61440" ]] || fail "block-bench's state: $got (want numberio 16, depth 1, the block at 61440)"
cp "$ST" bb.state
cp d.img bb.img
rm -f d.img "$ST"
fio "${J[@]}" --number_ios=16 --do_verify=0 >fio.out 2>&1 || fail "fio write: $(cat fio.out)"
cmp bb.state "$ST" || fail "block-bench's state differs from fio's: $(state bb.state) / $(state "$ST")"
cp "$ST" fio.state

# 2. fio loads block-bench's state and checks block-bench's 16 blocks.
cp bb.img d.img
cp bb.state "$ST"
fio "${J[@]}" --verify_only=1 --verify_state_load=1 --output-format=json >fio.json 2>fio.err ||
  fail "fio with block-bench's state: $(cat fio.err)"
[[ $(reads fio.json) == 16 ]] || fail "fio checked $(reads fio.json) blocks, want 16"
# 3. verify_only saved again, as fio's dry run counts: 256 writes.
got=$(state "$ST")
[[ "$got" == "256 1 1 0 w 1 1044480" ]] || fail "fio's re-saved state: $got"
cp bb.state "$ST"
if fio "${J[@]}" --verify_only=1 >fio.out 2>&1; then fail "fio without the state passed the unwritten blocks"; fi

# 4. block-bench loads fio's state and checks fio's 16 blocks.
rm -f d.img
fio "${J[@]}" --number_ios=16 --do_verify=0 >fio.out 2>&1 || fail "fio write: $(cat fio.out)"
cp "$ST" fio.state
"$BB" "${J[@]}" --verify_only=1 --verify_state_load=1 --output-format=json >bb.json 2>bb.err ||
  fail "block-bench with fio's state: $(cat bb.err)"
[[ $(reads bb.json) == 16 ]] || fail "block-bench checked $(reads bb.json) blocks, want 16"
got=$(state "$ST")
[[ "$got" == "256 1 1 0 w 1 1044480" ]] || fail "block-bench's verify_only state: $got (fio saves 256 writes)"
cp fio.state "$ST"
if "$BB" "${J[@]}" --verify_only=1 >bb.out 2>bb.err; then
  fail "block-bench without the state passed the unwritten blocks"
fi
grep -q "bad magic header" bb.err || fail "block-bench without the state: $(cat bb.err)"
# do_verify with the state: the verify pass stops where fio's writes did.
rm -f d.img
fio "${J[@]}" --number_ios=16 --do_verify=0 >fio.out 2>&1 || fail "fio write: $(cat fio.out)"
"$BB" "${J[@]}" --number_ios=24 --verify_state_load=1 --output-format=json >bb.json 2>bb.err ||
  fail "block-bench do_verify with a state: $(cat bb.err)"
[[ $(reads bb.json) == 16 ]] || fail "do_verify with fio's 16-write state checked $(reads bb.json) blocks"

# 5. iodepth=4, random: the last 4 completions, each a block written.
rm -f d.img "$ST"
"$BB" "${J[@]}" --rw=randwrite --ioengine=libaio --iodepth=4 --number_ios=16 --do_verify=0 \
  --write_iolog=w.iolog >bb.out 2>bb.err || fail "block-bench randwrite: $(cat bb.err)"
read -r numberio depth nofiles index name n offs <<<"$(state "$ST")"
[[ "$numberio $depth $n" == "16 4 4" ]] || fail "randwrite state: $numberio writes, depth $depth, $n entries"
log=$(ls w.iolog* | head -1)
written=$(awk '$2 == "write" || $3 == "write" { print ($3 == "write" ? $4 : $3) }' "$log" | sort -u)
for o in ${offs//,/ }; do
  grep -qx "$o" <<<"$written" || fail "entry $o was not written (iolog: $(wc -l <"$log") lines)"
done
[[ $(tr , '\n' <<<"$offs" | sort -u | wc -l) == 4 ]] || fail "entries repeat: $offs"

# 6. numjobs=2: one state per clone, fio's names; --aux-path.
rm -rf d.img local-*.state aux && mkdir aux
"$BB" "${J[@]}" --number_ios=4 --do_verify=0 --numjobs=2 >bb.out 2>bb.err || fail "numjobs=2: $(cat bb.err)"
bbnames=$(ls local-*.state | tr '\n' ' ')
rm -f local-*.state
fio "${J[@]}" --number_ios=4 --do_verify=0 --numjobs=2 >fio.out 2>&1 || fail "fio numjobs=2"
[[ "$(ls local-*.state | tr '\n' ' ')" == "$bbnames" ]] || fail "state files: block-bench $bbnames, fio $(ls local-*.state)"
[[ "$(state local-w-1-verify.state | cut -d' ' -f4)" == 1 ]] || fail "the second clone's index"
rm -f local-*.state
"$BB" --aux-path=aux "${J[@]}" --number_ios=4 --do_verify=0 >bb.out 2>bb.err || fail "aux-path: $(cat bb.err)"
[[ -f aux/$ST && ! -f $ST ]] || fail "--aux-path: $(ls . aux)"

# 7. Stopped by SIGINT: the state says how far it got, and fio checks that far.
rm -f d.img "$ST"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/bench_proc.sh"
"$BB" "${J[@]}" --size=64m --rate=4m --do_verify=0 >bb.out 2>bb.err &
pid=$!
bb_wait_running "$pid" w || fail "block-bench did not start"
sleep 0.3
kill -INT "$pid"
wait "$pid" && fail "interrupted block-bench exited 0"
read -r numberio _ <<<"$(state "$ST")" || fail "no state after SIGINT: $(cat bb.err)"
(( numberio > 0 && numberio < 16384 )) || fail "SIGINT: numberio $numberio"
fio "${J[@]}" --size=64m --verify_only=1 --verify_state_load=1 --output-format=json >fio.json 2>fio.err ||
  fail "fio after SIGINT: $(cat fio.err)"
[[ $(reads fio.json) == "$numberio" ]] || fail "fio checked $(reads fio.json) blocks, the state says $numberio written"

# 8. Missing and corrupt states fail the job, naming the file.
rm -f "$ST"
if "$BB" "${J[@]}" --verify_only=1 --verify_state_load=1 >bb.out 2>bb.err; then fail "no state: passed"; fi
grep -q "verify_state_load: cannot open '$ST'" bb.err || fail "no state: $(cat bb.err)"
cp bb.state "$ST"
printf '\x07' | dd of="$ST" bs=1 seek=40 conv=notrunc status=none
if "$BB" "${J[@]}" --verify_only=1 --verify_state_load=1 >bb.out 2>bb.err; then fail "corrupt state: passed"; fi
grep -q "'$ST': the state is corrupt" bb.err || fail "corrupt state: $(cat bb.err)"
if fio "${J[@]}" --verify_only=1 --verify_state_load=1 >fio.out 2>&1; then fail "fio passed the corrupt state"; fi
echo PASS

#!/bin/bash
# fio's mmap, falloc and ftruncate engines on the binary beside fio 3.33,
# judged by what each leaves in the file:
#   mmap       data written through the mapping is the file's: block-bench
#              writes with verify=crc32c and fio verifies it with psync (and
#              the reverse), with and without direct=1 (msync + drop per
#              I/O); direct=1 with a block below the page size is refused as
#              fio refuses it.
#   falloc     a random write or read job on a sparse file allocates the
#              same blocks as fio's (st_blocks equal) and writes no byte (the
#              file reads as zeros).
#   ftruncate  a sequential write job leaves the file at the last write's
#              offset, as fio's; a read job fails its first I/O with EINVAL
#              (exit 1, error 22 in JSON), and a trim job as fio's.
#   splice     data goes through a pipe both ways: each tool writes with
#              verify=crc32c and the other verifies with splice reads, with
#              and without direct=1; the system calls are splice/vmsplice.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/inline.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

tool() { if [ "$1" = fio ]; then echo fio; else echo "$BB"; fi; }

# mmap: each tool writes, the other verifies.
for direct in 0 1; do
  for w in fio bb; do
    if [ $w = fio ]; then r=bb; else r=fio; fi
    rm -f m.dat
    "$(tool $w)" --name=w --filename=m.dat --size=1m --bs=8k --rw=randwrite --ioengine=mmap \
      --direct=$direct --verify=crc32c --do_verify=0 >w.out 2>&1 ||
      fail "$w mmap direct=$direct write: $(cat w.out)"
    "$(tool $r)" --name=w --filename=m.dat --size=1m --bs=8k --rw=randread --ioengine=psync \
      --verify=crc32c --verify_only=1 --output-format=json >r.json 2>r.err ||
      fail "$r did not verify $w's mmap writes (direct=$direct): $(cat r.err)"
    echo "mmap direct=$direct: $w wrote 1 MiB through the mapping, $r verified it"
  done
  # block-bench reads fio's data back through its own mapping too.
  "$BB" --name=w --filename=m.dat --size=1m --bs=8k --rw=randread --ioengine=mmap \
    --direct=$direct --verify=crc32c --verify_only=1 >r.out 2>&1 ||
    fail "block-bench mmap did not verify fio's data (direct=$direct): $(cat r.out)"
done
for t in fio bb; do
  "$(tool $t)" --name=s --filename=m.dat --size=1m --bs=512 --rw=read --ioengine=mmap \
    --direct=1 >small.out 2>&1 && fail "$t: mmap direct=1 bs=512 ran: $(cat small.out)"
  grep -q "minimum block size" small.out || fail "$t: mmap direct=1 bs=512: $(cat small.out)"
done
echo "mmap direct=1 with bs=512: refused by both"

# falloc: the same blocks allocated, no data written, by writes (mode 0)
# and by reads (KEEP_SIZE: a read job opens the file read-write).
for rw in randwrite randread; do
  for t in fio bb; do
    rm -f a.dat && truncate -s 8m a.dat
    "$(tool $t)" --name=a --filename=a.dat --size=8m --bs=64k --rw=$rw --ioengine=falloc \
      --number_ios=40 >a.out 2>&1 || fail "$t falloc $rw: $(cat a.out)"
    eval "blocks_$t=$(stat -c %b a.dat)"
    eval "size_$t=$(stat -c %s a.dat)"
    cmp -s a.dat <(head -c 8388608 /dev/zero) || fail "$t falloc $rw wrote data into the file"
  done
  # shellcheck disable=SC2154
  [ "$blocks_bb" = "$blocks_fio" ] || fail "falloc $rw allocated $blocks_bb blocks, fio $blocks_fio"
  [ "$blocks_fio" -gt 0 ] || fail "fio's falloc $rw allocated nothing"
  # shellcheck disable=SC2154
  [ "$size_bb" = "$size_fio" ] || fail "falloc $rw: size $size_bb, fio $size_fio"
  echo "falloc $rw: $blocks_bb blocks allocated by both, no data"
done

# ftruncate: the file ends at the last write's offset; reads fail.
for t in fio bb; do
  rm -f t.dat
  "$(tool $t)" --name=t --filename=t.dat --size=100k --bs=4k --rw=write --ioengine=ftruncate \
    >t.out 2>&1 || fail "$t ftruncate write: $(cat t.out)"
  eval "len_$t=$(stat -c %s t.dat)"
  for rw in read trim; do
    "$(tool $t)" --name=t --filename=t.dat --size=100k --bs=4k --rw=$rw --ioengine=ftruncate \
      --output-format=json --output=r.json >r.out 2>&1
    eval "${rw}exit_$t=$?"
    eval "${rw}err_$t=$(python3 -c 'import json; print(json.load(open("r.json"))["jobs"][0]["error"])' 2>/dev/null)"
  done
done
# shellcheck disable=SC2154
[ "$len_fio" = $((96 * 1024)) ] || fail "fio's ftruncate left $len_fio bytes"
# shellcheck disable=SC2154
[ "$len_bb" = "$len_fio" ] || fail "ftruncate left $len_bb bytes, fio $len_fio"
# shellcheck disable=SC2154
[ "$readexit_bb/$readerr_bb" = "$readexit_fio/$readerr_fio" ] ||
  fail "ftruncate read: exit/error $readexit_bb/$readerr_bb, fio $readexit_fio/$readerr_fio"
[ "$readerr_fio" = 22 ] || fail "fio's ftruncate read error $readerr_fio"
# shellcheck disable=SC2154
[ "$trimexit_bb/$trimerr_bb" = "$trimexit_fio/$trimerr_fio" ] ||
  fail "ftruncate trim: exit/error $trimexit_bb/$trimerr_bb, fio $trimexit_fio/$trimerr_fio"
echo "ftruncate: $len_bb bytes left by both; a read or a trim fails with exit/error $readexit_bb/$readerr_bb, $trimexit_bb/$trimerr_bb"

# splice: each tool writes, the other verifies by splice reads.
for direct in 0 1; do
  for w in fio bb; do
    if [ $w = fio ]; then r=bb; else r=fio; fi
    rm -f s.dat
    "$(tool $w)" --name=s --filename=s.dat --size=2m --bs=128k --rw=randwrite --ioengine=splice \
      --direct=$direct --verify=crc32c --do_verify=0 >w.out 2>&1 ||
      fail "$w splice direct=$direct write: $(cat w.out)"
    "$(tool $r)" --name=s --filename=s.dat --size=2m --bs=128k --rw=randread --ioengine=splice \
      --direct=$direct --verify=crc32c --verify_only=1 --output-format=json >r.json 2>r.err ||
      fail "$r did not verify $w's splice writes (direct=$direct): $(cat r.err)"
  done
  echo "splice direct=$direct: each tool verified the other's 2 MiB"
done
under_strace st.txt splice,vmsplice,pread64,pwrite64 -c "$BB" --name=s --filename=s.dat \
  --size=1m --bs=64k --rw=randrw --ioengine=splice >/dev/null 2>&1 || fail "splice randrw"
python3 - st.txt <<'PY' || fail "splice system calls: $(cat st.txt)"
import sys
calls = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 5 and f[-1] in ("splice", "vmsplice", "pread64", "pwrite64"):
        calls[f[-1]] = int(f[3])
# 16 I/Os of one pipe-full each: at least a splice and a vmsplice apiece
# (the kernel may move a pipe-full in two), no pwrite, and no pread but the
# driver's probe of the file at open.
assert calls.get("splice", 0) >= 16 and calls.get("vmsplice", 0) >= 16, calls
assert "pwrite64" not in calls and calls.get("pread64", 0) <= 2, calls
print("splice randrw: %d splice + %d vmsplice calls for 16 I/Os, no pwrite" %
      (calls["splice"], calls["vmsplice"]))
PY
echo PASS

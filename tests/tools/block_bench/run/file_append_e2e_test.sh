#!/bin/bash
# fio's file_append= on the binary, against fio 3.33 on the same jobs: the
# I/O of an existing regular file starts at its end (offset= ignored), the
# file grows by the job's size and its old contents stay; a new file starts
# at 0; a reading job reads the appended region; the offsets (write_iolog)
# and the final sizes are fio's; two runs append twice.
# fio is required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fileappend.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
cd "$T" || fail cd

# run TOOL FILE ARGS...: the job on FILE, its I/O lines "OP OFFSET LEN" in
# TOOL.io.
run() {
  local tool=$1 file=$2; shift 2
  rm -f $tool.log
  if [ $tool = fio ]; then
    fio --output=/dev/null --name=a --filename="$file" --write_iolog=$tool.log "$@" >$tool.out 2>&1
  else
    "$BB" --name=a --filename="$file" --write_iolog=$tool.log "$@" >$tool.out 2>&1
  fi || fail "$tool $*: $(cat $tool.out)"
  awk '$3 ~ /^(read|write|trim)$/ {print $3, $4, $5}' $tool.log >$tool.io
}
pattern() { head -c "$1" /dev/zero | tr '\0' 'K'; }

n=0
for args in "--rw=write --bs=4k --size=32k --offset=8k" \
            "--rw=randwrite --bs=4k --size=32k --randrepeat=1" \
            "--rw=write --bs=16k --size=64k --ioengine=libaio --direct=1 --iodepth=4" \
            "--rw=read --bs=4k --size=32k"; do
  n=$((n + 1))
  for tool in fio bb; do
    pattern 65536 >$tool.dat
    run $tool $tool.dat --file_append=1 $args
    [ "$(stat -c %s $tool.dat)" = "$(stat -c %s fio.dat)" ] ||
      fail "$args: file is $(stat -c %s $tool.dat) bytes after $tool"
    # A writing job leaves the old contents (a reading one lays the file
    # out again, fio's as ours).
    case $args in
      *write*) cmp -n 65536 $tool.dat <(pattern 65536) || fail "$tool $args: the old 64 KiB changed" ;;
    esac
  done
  size=$(stat -c %s fio.dat)
  [ "$size" -gt 65536 ] || fail "fio's own $args did not grow the file ($size)"
  # Every I/O after the old end, within the new one.
  awk -v s="$size" '$2 < 65536 || $2 + $3 > s { exit 1 }' bb.io || fail "$args: I/O outside the appended region: $(head -3 bb.io)"
  [ -s bb.io ] || fail "$args: no I/O"
  case $args in
    *randwrite*) sort bb.io >bb.s; sort fio.io >fio.s
                 [ "$(wc -l <bb.io)" = "$(wc -l <fio.io)" ] || fail "$args: I/O count differs" ;;
    *) diff fio.io bb.io >d.diff || fail "$args: offsets differ from fio's: $(head -4 d.diff)" ;;
  esac
done
# fio's own first write of the offset=8k job is at the old end.
run fio f1.dat --rw=write --bs=4k --size=32k --file_append=1 --offset=8k
head -1 fio.io | grep -qx "write 0 4096" || fail "fio's new-file append: $(head -1 fio.io)"

# A new file starts at 0 (offset= ignored, as fio's); a second run appends
# again.
rm -f new.dat
run bb new.dat --rw=write --bs=4k --size=32k --file_append=1 --offset=8k
head -1 bb.io | grep -qx "write 0 4096" || fail "new file: first write $(head -1 bb.io)"
[ "$(stat -c %s new.dat)" = 32768 ] || fail "new file size $(stat -c %s new.dat)"
run bb new.dat --rw=write --bs=4k --size=32k --file_append=1
head -1 bb.io | grep -qx "write 32768 4096" || fail "second append: first write $(head -1 bb.io)"
[ "$(stat -c %s new.dat)" = 65536 ] || fail "after two appends: $(stat -c %s new.dat)"

# Without file_append the same job overwrites from offset=.
pattern 65536 >plain.dat
run bb plain.dat --rw=write --bs=4k --size=32k --offset=8k
head -1 bb.io | grep -qx "write 8192 4096" || fail "without file_append: $(head -1 bb.io)"
[ "$(stat -c %s plain.dat)" = 65536 ] || fail "without file_append the file grew"
echo PASS

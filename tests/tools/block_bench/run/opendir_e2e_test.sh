#!/bin/bash
# fio's opendir= on the binary, against fio 3.33 on the same directory tree:
# every regular file below it, recursively, is a file of the job (links,
# FIFOs and files outside left alone); the same files get I/O (write_iolog)
# and as much of it as fio's, each file read in full without size=, sizes
# split with size=; an empty or missing directory is refused naming it.
# fio is required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/opendir.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
cd "$T" || fail cd
mkdir -p d/sub/deeper d/other empty
head -c 8192 /dev/urandom >d/a
head -c 16384 /dev/urandom >d/sub/b
head -c 4096 /dev/urandom >d/sub/deeper/c
head -c 12288 /dev/urandom >d/other/e
head -c 4096 /dev/urandom >outside
ln -s ../outside d/link
mkfifo d/fifo

# run TOOL NAME ARGS...: per file, "FILE OP COUNT BYTES" of the job's I/O
# (write_iolog), sorted, in NAME.io.
run() {
  local tool=$1 name=$2; shift 2
  rm -f $name.log
  if [ $tool = fio ]; then
    fio --output=$name.out --name=o --write_iolog=$name.log "$@" >>$name.out 2>&1
  else
    "$BB" --name=o --write_iolog=$name.log "$@" >$name.out 2>&1
  fi || fail "$tool $*: $(cat $name.out)"
  awk '$3 ~ /^(read|write)$/ { n[$2" "$3]++; b[$2" "$3] += $5 }
       END { for (k in n) print k, n[k], b[k] }' $name.log | sort >$name.io
}

# fio's own whole-file reads (no size=): 2 + 4 + 1 + 3 blocks.
run fio f "--opendir=$T/d" --rw=read --bs=4k
[ "$(awk '{s += $3} END {print s}' f.io)" = 10 ] || fail "fio's own opendir reads: $(cat f.io)"
# (The write job last: it grows the files to its size / 4.)
for args in "--rw=read --bs=4k" "--rw=randread --bs=4k" "--rw=write --bs=4k --size=64k"; do
  run fio f "--opendir=$T/d" $args
  run bb b "--opendir=$T/d" $args
  diff f.io b.io >d.diff || fail "opendir $args: I/O per file differs from fio's: $(cat d.diff)"
  [ "$(awk '{print $1}' b.io | sort -u | wc -l)" = 4 ] || fail "opendir $args: not 4 files: $(cat b.io)"
  grep -q "outside\|link\|fifo" b.io && fail "opendir $args: a link or FIFO got I/O"
done
[ "$(stat -c %s outside)" = 4096 ] || fail "the file outside changed"

# A subdirectory alone; with a trailing slash.
run bb b "--opendir=$T/d/sub/" --rw=read --bs=4k
[ "$(awk '{print $1}' b.io | tr '\n' ' ')" = "$T/d/sub/b $T/d/sub/deeper/c " ] ||
  fail "opendir=d/sub/: $(cat b.io)"

# Errors name the option and the directory.
"$BB" --name=o --opendir="$T/empty" --rw=read >e.out 2>&1 && fail "empty directory accepted"
grep -q "opendir.*no regular file below '$T/empty'" e.out || fail "empty: $(cat e.out)"
"$BB" --name=o --opendir="$T/missing" --rw=read >m.out 2>&1 && fail "missing directory accepted"
grep -q "opendir.*$T/missing.*No such file or directory" m.out || fail "missing: $(cat m.out)"
echo PASS

#!/bin/bash
# fio's write_hint= on the binary, against fio 3.33 on the same jobs, through
# strace: one fcntl(2) F_SET_RW_HINT per file of a buffered job, as fio's,
# whose life time the file's inode then holds (read back with
# F_GET_RW_HINT); none without the option; a direct=1 job uses
# F_SET_FILE_RW_HINT as fio, which Linux 5.17+ refuses: then both tools
# fail the job; a value fio does not know is refused naming the option.
# fio and strace are required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/writehint.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
require_tool python3 python3
cd "$T" || fail cd

# Runs fio (tool=fio) or block-bench under strace (fcntl calls in $1.trace);
# its exit status is the function's.
traced() {
  local name=$1 tool=$2; shift 2
  if [ "$tool" = fio ]; then
    under_strace "$name.trace" fcntl fio --output="$name.out" "$@" >>"$name.out" 2>&1
  else
    under_strace "$name.trace" fcntl "$BB" "$@" >"$name.out" 2>&1
  fi
}
# The number of fcntl calls with command $2 (its name or number) in trace $1.
calls() { grep -cE "fcntl\([0-9]+, ($2)[ ,]" "$1"; }
SET='F_SET_RW_HINT|0x40c \/\* F_\?\?\? \*\/|1036'
SET_FILE='F_SET_FILE_RW_HINT|0x40e \/\* F_\?\?\? \*\/|1038'
# The inode's write life time of file $1 (F_GET_RW_HINT).
inode_hint() {
  python3 -c "
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(struct.unpack('Q', fcntl.fcntl(fd, 1035, bytes(8)))[0])" "$1"
}

# 1. Buffered, two files, each hint: one F_SET_RW_HINT per file, the value
# on the inode (fio's values: none 1 .. extreme 5).
n=0
for h in short:2 extreme:5 none:1; do
  name=${h%%:*} want=${h##*:}
  for tool in fio bb; do
    n=$((n + 1))
    rm -f j.0.*
    traced $tool$n $tool --name=j --directory="$T" --nrfiles=2 --size=128k --bs=4k \
      --rw=write --ioengine=psync --write_hint="$name" || fail "$tool write_hint=$name: $(cat $tool$n.out)"
    c=$(calls $tool$n.trace "$SET")
    [ "$c" = 2 ] || fail "$tool write_hint=$name: $c F_SET_RW_HINT calls, want 2 (one per file)"
    for f in j.0.0 j.0.1; do
      got=$(inode_hint $f) || fail "F_GET_RW_HINT on $f"
      [ "$got" = "$want" ] || fail "$tool write_hint=$name: inode hint of $f is $got, want $want"
    done
  done
done

# 2. Without write_hint no call; a reading job gets one too (fio sets it on
# every file it opens).
for tool in fio bb; do
  traced ${tool}n $tool --name=j --directory="$T" --nrfiles=2 --size=128k --rw=read \
    || fail "$tool without write_hint: $(cat ${tool}n.out)"
  [ "$(calls ${tool}n.trace "$SET|$SET_FILE")" = 0 ] || fail "$tool: a hint call without write_hint"
  traced ${tool}r $tool --name=j --directory="$T" --nrfiles=2 --size=128k --rw=read \
    --write_hint=long || fail "$tool reading job with write_hint: $(cat ${tool}r.out)"
  [ "$(calls ${tool}r.trace "$SET")" = 2 ] || fail "$tool reading job: not one call per file"
done

# 3. direct=1: F_SET_FILE_RW_HINT, as fio; where the kernel refuses it, both
# fail the job, block-bench saying why.
traced fiod fio --name=d --filename="$T/d.dat" --size=128k --bs=4k --rw=write --direct=1 \
  --write_hint=short
fio_rc=$?
traced bbd bb --name=d --filename="$T/d.dat" --size=128k --bs=4k --rw=write --direct=1 \
  --write_hint=short
bb_rc=$?
[ "$(calls fiod.trace "$SET_FILE")" = 1 ] || fail "fio's own direct=1 call: $(grep fcntl fiod.trace)"
[ "$(calls bbd.trace "$SET_FILE")" = 1 ] || fail "direct=1: not one F_SET_FILE_RW_HINT call"
if grep -qE "($SET_FILE).*= -1 EINVAL" fiod.trace; then
  [ $fio_rc != 0 ] || fail "fio succeeded though its fcntl failed"
  [ $bb_rc != 0 ] || fail "block-bench succeeded where fio's direct=1 write_hint failed"
  grep -q "fcntl write hint.*Invalid argument" bbd.out || fail "direct=1 message: $(cat bbd.out)"
else
  [ $fio_rc = 0 ] && [ $bb_rc = 0 ] || fail "direct=1: fio rc $fio_rc, block-bench rc $bb_rc"
fi

# 4. A value fio does not know.
"$BB" --name=x --filename="$T/x" --size=64k --write_hint=forever >bad.out 2>&1 \
  && fail "write_hint=forever accepted"
grep -q "write_hint" bad.out || fail "write_hint=forever message: $(cat bad.out)"
echo PASS

#!/bin/bash
# fio's unlink_each_loop= on the binary, against fio 3.33 on the same jobs,
# through strace -f: with loops=N the file is unlinked and created again
# before each loop after the first (N-1 successful unlinks, none after the
# last loop), every loop's I/O is done (N passes), and the file left is
# the last loop's (a new file, mode 0600 as fio creates it, the job's
# size).  loops=1 or the option off: no unlink.
# fio and strace are required (skip, or fail under BLK_TEST_NO_SKIP=1).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/unlinkloop.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
require_tool python3 python3
cd "$T" || fail cd

traced() {
  local name=$1 tool=$2; shift 2
  if [ "$tool" = fio ]; then
    under_strace "$name.trace" unlink,unlinkat fio --output-format=json \
      --output="$name.json" "$@" >"$name.out" 2>&1 || fail "fio $*: $(cat "$name.out")"
  else
    under_strace "$name.trace" unlink,unlinkat "$BB" --output-format=json "$@" \
      >"$name.json" 2>"$name.out" || fail "block-bench $*: $(cat "$name.out")"
  fi
}
# Successful unlinks of file $2 in trace $1.
unlinks() { grep -E "unlink(at)?\((AT_FDCWD, )?\"$2\".*= 0$" "$1" | wc -l; }
ios() {
  python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))['jobs'][0]
print(j['read']['total_ios'] + j['write']['total_ios'])" "$1"
}

n=0
for c in "write 3 1" "randwrite 2 1" "write 1 1" "write 3 0"; do
  set -- $c
  rw=$1 loops=$2 opt=$3
  for tool in fio bb; do
    n=$((n + 1))
    head -c 65536 /dev/urandom >$tool.dat
    chmod 644 $tool.dat
    traced $tool$n $tool --name=u --filename="$T/$tool.dat" --size=64k --bs=16k --rw=$rw \
      --loops=$loops --unlink_each_loop=$opt
    eval "u_$tool=$(unlinks $tool$n.trace "$T/$tool.dat")"
    eval "i_$tool=$(ios $tool$n.json)"
    [ "$(stat -c %s $tool.dat)" = 65536 ] || fail "$tool $c: file size $(stat -c %s $tool.dat)"
    if [ "$opt" = 1 ] && [ "$loops" -gt 1 ]; then
      # A new file (the file system may reuse the inode number: the mode
      # tells, 0644 before, 0600 as fio creates it).
      [ "$(stat -c %a $tool.dat)" = 600 ] || fail "$tool $c: mode $(stat -c %a $tool.dat), not a new file"
    else
      [ "$(stat -c %a $tool.dat)" = 644 ] || fail "$tool $c: the file was replaced"
    fi
  done
  [ "$u_bb" = "$u_fio" ] || fail "rw=$rw loops=$loops unlink_each_loop=$opt: $u_bb unlinks, fio $u_fio"
  [ "$i_bb" = "$i_fio" ] || fail "rw=$rw loops=$loops unlink_each_loop=$opt: $i_bb I/Os, fio $i_fio"
  want=0
  [ "$opt" = 1 ] && want=$((loops - 1))
  [ "$u_fio" = "$want" ] || fail "fio's own unlinks for $c: $u_fio, want $want"
  [ "$i_fio" = $((loops * 4)) ] || fail "fio's own I/O count for $c: $i_fio"
done
echo PASS

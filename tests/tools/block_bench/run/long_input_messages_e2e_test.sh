#!/bin/bash
# Error lines quote user input cut as docs/reliability.md promises (a graph
# spec or file name at 4096 bytes, other values at 80, then "...(N more
# bytes)"), on the real binary
# (issue #29 item 7): a 100,000-byte graph spec that fails to open, one
# whose requests fail (error-inject), and a 100,000-byte filename.  Before,
# each printed the whole spec or name: one stderr line of 100,158 bytes.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/longmsg.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T" || fail cd

# The longest line allowed: the fixed text of a message plus one quoted
# name of at most 4096 bytes and two values of at most 80, each with its
# "...(N more bytes)".
MAX_LINE=4700
long=$(head -c 100000 /dev/zero | tr '\0' 'n')

# check NAME STDERR: exit status 1, some stderr line says the value was cut,
# and no line is longer than MAX_LINE bytes.
check() {
  local name=$1 err=$2 rc=$3
  [ "$rc" -eq 1 ] || fail "$name: exit status $rc, want 1: $(head -c 300 "$err")"
  grep -q 'more bytes)' "$err" || fail "$name: no cut value in: $(head -c 300 "$err")"
  local longest
  longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$err")
  [ "$longest" -le $MAX_LINE ] || fail "$name: a stderr line of $longest bytes (at most $MAX_LINE)"
  echo "ok: $name (longest stderr line $longest bytes)"
}

# 1. A graph spec that fails to open: a missing file under a long node-name.
"$BB" --name=o --rw=read --bs=4k --size=1m \
  --blockdev="driver=file,node-name=$long,filename=$T/missing/f" >o.out 2>o.err
check "open error, 100,000-byte spec" o.err $?
grep -q "cannot open 'driver=file,node-name=nnn" o.err || fail "open error: $(head -c 300 o.err)"

# 2. Requests that fail: error-inject over null, the same long node-name.
"$BB" --name=e --rw=read --bs=4k --size=1m \
  --blockdev="driver=error-inject,node-name=$long,file.driver=null,file.size=1m" >e.out 2>e.err
check "I/O error, 100,000-byte spec" e.err $?
grep -q "read error on 'driver=error-inject,node-name=nnn.*more bytes)' at offset 0 length 4096: -5" e.err ||
  fail "I/O error: $(head -c 300 e.err)"

# 3. A 100,000-byte filename (the kernel refuses it: ENAMETOOLONG).
"$BB" --name=f --rw=read --bs=4k --size=1m --filename="$T/$long" >f.out 2>f.err
check "100,000-byte filename" f.err $?
echo PASS

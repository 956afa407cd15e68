#!/bin/bash
# fio's file-system engines (filecreate, filestat, filedelete) on the binary
# beside fio 3.33: the same counts (I/Os, bytes, one completion latency per
# file opened, none for the I/O itself), the same files left behind, the
# same failure when a file is missing, and fio's examples in small.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fs.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

tool() { if [ "$1" = fio ]; then echo fio; else echo "$BB"; fi; }

# counts JSON: "io_bytes total_ios clat_N lat_N error" of the first job.
counts() {
  python3 -c '
import json, sys
t = sys.stdin.read()
j = json.loads(t[t.index("{"):])["jobs"][0]
r = j["read"]
print(r["io_bytes"], r["total_ios"], r["clat_ns"]["N"], r["lat_ns"]["N"], j["error"])'
}

# Each case: the tool's counts and the files it leaves (name:size).
run_case() {
  local t=$1 name=$2
  shift 2
  mkdir -p "$t.$name" && cd "$t.$name" || fail cd
  "$(tool "$t")" --name=j --output-format=json "$@" >out.json 2>err.txt
  echo "exit=$? $(counts <out.json 2>/dev/null)"
  for f in j.*; do [ -e "$f" ] && echo "$f:$(stat -c %s "$f")"; done
  cd .. || fail cd
}

check() {
  local name=$1
  shift
  run_case fio "$name" "$@" >fio.$name.txt
  run_case bb "$name" "$@" >bb.$name.txt
  diff fio.$name.txt bb.$name.txt >/dev/null || fail "$name: fio and block-bench differ:
$(diff fio.$name.txt bb.$name.txt)"
  echo "$name: as fio ($(head -1 bb.$name.txt), $(($(wc -l <bb.$name.txt) - 1)) files)"
}

check stat --ioengine=filestat --filesize=4k --nrfiles=20
check lstat --ioengine=filestat --stat_type=lstat --filesize=8k --bs=4k --nrfiles=3
check statx --ioengine=filestat --stat_type=statx --filesize=4k --nrfiles=3 --loops=2
check create --ioengine=filecreate --nrfiles=12 --filesize=4k --openfiles=1 --create_on_open=1
check delete --ioengine=filedelete --nrfiles=10 --filesize=4k --unlink=0
check write --ioengine=filestat --rw=write --filesize=4k --nrfiles=4
# The second loop finds the files deleted: fio's error, exit status 1.
check delete_twice --ioengine=filedelete --nrfiles=4 --filesize=4k --loops=2
grep -q "^exit=1 .* 2$" bb.delete_twice.txt || fail "delete_twice: $(cat bb.delete_twice.txt)"
grep -q "delete(j.0.0): No such file or directory" bb.delete_twice/err.txt ||
  fail "delete_twice message: $(cat bb.delete_twice/err.txt)"

# Not a regular file: fio says "only files are supported" and does nothing
# (exit 0); block-bench refuses the job with the same words (exit 1).
fio --name=d --ioengine=filestat --filename=/dev/null --size=4k >dev.fio 2>&1
"$BB" --name=d --ioengine=filestat --filename=/dev/null --size=4k >dev.bb 2>&1 &&
  fail "block-bench: filestat on /dev/null ran: $(cat dev.bb)"
for t in fio bb; do
  grep -q "only files are supported" dev.$t || fail "$t: filestat on /dev/null: $(cat dev.$t)"
done
echo "filestat on a device: $(grep -m1 'only files' dev.bb)"

# fio's examples (smaller: fewer files and jobs).
cat >create.fio <<'EOF'
[global]
create_on_open=1
nrfiles=300
ioengine=filecreate
fallocate=none
filesize=4k
openfiles=1

[t0]
[t1]
EOF
cat >stat.fio <<'EOF'
[global]
ioengine=filestat
numjobs=1
filesize=4k
nrfiles=200
thread

[t0]
[t1]
EOF
cat >delete.fio <<'EOF'
[global]
ioengine=filedelete
filesize=4k
nrfiles=200
unlink=0

[t0]
[t1]
EOF
for ex in create stat delete; do
  for t in fio bb; do
    rm -rf ex && mkdir ex && cd ex || fail cd
    "$(tool $t)" ../$ex.fio --output-format=json >out.json 2>err.txt || fail "$t $ex.fio: $(cat err.txt)"
    python3 - out.json >../$ex.out.$t <<'EOF' || fail "$t $ex.fio JSON"
import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    r = j["read"]
    print(j["jobname"], r["io_bytes"], r["total_ios"], r["clat_ns"]["N"], j["error"])
EOF
    ls | grep -c '^t[01]\.' >>../$ex.out.$t
    cd .. || fail cd
  done
  diff $ex.out.fio $ex.out.bb || fail "examples/$ex: differs from fio"
  echo "examples/$ex: as fio: $(tr '\n' ' ' <$ex.out.bb)"
done
echo PASS

#!/bin/bash
# ioengine=nbd with uri= (fio's nbd engine) on the binary, beside fio 3.33,
# against nbdkit's memory plugin on a unix socket started here: the same
# jobs issue the same I/O (counts, sizes from the export), data written by
# block-bench is read back and verified by fio (verify=pattern) and the
# reverse, a server error reaches the job as its errno, and the errors.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool nbdkit nbdkit
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
# A unix socket's path must be short: not under bazel's TEST_TMPDIR.
T="$(mktemp -d /tmp/nbd_e2e.XXXXXX)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
cd "$T" || fail cd

# serve NAME ARGS...: nbdkit on $T/NAME.sock in the background, ready: it
# writes its pid file once it accepts connections (the socket exists
# earlier, between bind and listen, when a connect is refused).
serve() {
  local name=$1; shift
  nbdkit -f -U "$T/$name.sock" -P "$T/$name.pid" "$@" >"$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do [ -s "$T/$name.pid" ] && return 0; sleep 0.05; done
  fail "nbdkit $* did not start: $(cat "$name.log")"
}
serve mem memory 64M
serve err --filter=error memory 16M error-pread=EIO error-pread-rate=100%
U="nbd+unix:///?socket=$T/mem.sock"

# total TOOL JSON: "reads writes" of the job.
total() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["read"]["total_ios"], j["write"]["total_ios"], j["error"])' "$1"; }

# The same jobs, the same I/O: the export's size decides without size=.
for job in "--rw=read --bs=1m" "--rw=randwrite --bs=4k --number_ios=500 --iodepth=16" \
           "--rw=randread --bs=16k --size=8m --iodepth=4" "--rw=write --bs=256k --size=4m --fsync=3"; do
  # shellcheck disable=SC2086
  "$BB" --name=j --ioengine=nbd --uri="$U" $job --output-format=json --output=bb.json >bb.txt 2>&1 ||
    fail "$job: block-bench: $(cat bb.txt)"
  # shellcheck disable=SC2086
  fio --name=j --ioengine=nbd --uri="$U" $job --output-format=json --output=fio.json >fio.txt 2>&1 ||
    fail "$job: fio: $(cat fio.txt)"
  b=$(total bb.json) f=$(total fio.json)
  [ "$b" = "$f" ] || fail "$job: block-bench did '$b' (reads writes error), fio '$f'"
  echo "$job: $b, as fio"
done
python3 -c 'import json; j=json.load(open("bb.json"))["jobs"][0]["job options"]; assert j["ioengine"]=="nbd" and j["uri"].startswith("nbd+unix"), j' ||
  fail "job options lack ioengine/uri"

# Data: block-bench writes a pattern, fio verifies it, and the reverse; a
# wrong pattern fails (the check can fail).
"$BB" --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --verify=pattern \
  --verify_pattern=0x5a5a1234 >bb.txt 2>&1 || fail "block-bench write+verify: $(cat bb.txt)"
fio --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --verify=pattern \
  --verify_pattern=0x5a5a1234 --verify_only=1 >fio.txt 2>&1 || fail "fio did not verify block-bench's data: $(cat fio.txt)"
fio --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --verify=pattern \
  --verify_pattern=0x11223344 --verify_only=1 >fio.txt 2>&1 && fail "fio verified a wrong pattern"
fio --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --offset=16m --verify=pattern \
  --verify_pattern=0x77665544 >fio.txt 2>&1 || fail "fio write: $(cat fio.txt)"
"$BB" --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --offset=16m --verify=pattern \
  --verify_pattern=0x77665544 --verify_only=1 >bb.txt 2>&1 || fail "block-bench did not verify fio's data: $(cat bb.txt)"
"$BB" --name=w --ioengine=nbd --uri="$U" --rw=write --bs=64k --size=8m --offset=16m --verify=pattern \
  --verify_pattern=0x5a5a1234 --verify_only=1 >bb.txt 2>&1 && fail "block-bench verified a wrong pattern"
echo "data: block-bench's verified by fio, fio's by block-bench"

# A server error: the job ends with the server's errno (EIO), as fio's.
"$BB" --name=e --ioengine=nbd --uri="nbd+unix:///?socket=$T/err.sock" --rw=read --bs=4k --size=64k \
  --output-format=json --output=bb.json >bb.txt 2>&1 && fail "a failing read passed"
fio --name=e --ioengine=nbd --uri="nbd+unix:///?socket=$T/err.sock" --rw=read --bs=4k --size=64k \
  --output-format=json --output=fio.json >fio.txt 2>&1
[ "$(total bb.json | cut -d' ' -f3)" = 5 ] || fail "server EIO: error $(total bb.json)"
[ "$(total fio.json | cut -d' ' -f3)" = 5 ] || fail "fio: server EIO: error $(total fio.json)"

# Errors: no uri (fio: "uri parameter was not specified"), no server, uri
# without ioengine=nbd.
"$BB" --name=x --ioengine=nbd --rw=read >err.txt 2>&1 && fail "no uri ran"
grep -q "ioengine=nbd needs uri=" err.txt || fail "no uri: $(cat err.txt)"
"$BB" --name=x --ioengine=nbd --uri="nbd+unix:///?socket=$T/none.sock" --rw=read >err.txt 2>&1 &&
  fail "no server ran"
grep -q "connecting to nbd+unix:///?socket=$T/none.sock" err.txt || fail "no server: $(cat err.txt)"
"$BB" --name=x --ioengine=null --uri="$U" >err.txt 2>&1 && fail "uri with ioengine=null ran"
grep -q "uri.*only valid with ioengine=nbd" err.txt || fail "uri without nbd: $(cat err.txt)"
echo PASS

#!/bin/bash
# Character devices as targets, on the binary beside fio 3.33 (fio's
# FIO_TYPE_CHAR): --filename=/dev/null, /dev/zero or /dev/full with a size=
# runs the job on the device, with fio's I/O counts, errors and exit status:
# /dev/null takes writes and fails the first read with EIO (no data),
# /dev/zero serves both, /dev/full fails the first write with ENOSPC.
# Without size= the job is refused naming the device and size=.
# One documented difference: fio's async engines (libaio, io_uring) count a
# read that returned no data as done with 0 bytes (fio checks "full resid"
# only for I/O its engine completed inline); block-bench fails it with EIO on
# every engine, as fio's sync engines do, since the buffer holds no data.
# A second follows from libaio with direct=0 running on block-bench's thread
# pool: a /dev/full write fails with the device's ENOSPC, where fio's
# io_submit gets EINVAL (the device has no write_iter for kernel AIO).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/chardev.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd

# outcome TOOL ARGS...: "exit=S error=E reads=R writes=W read_bytes=B".
outcome() {
  local tool=$1; shift
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio)
  "${cmd[@]}" --output-format=json --output=out.json "$@" >out.txt 2>&1
  local st=$?
  python3 - "$st" <<'PY' || cat out.txt out.json
import json, sys
text = open("out.json").read()
j = json.loads(text[text.index("{"):])["jobs"][0]
print("exit=%s error=%d reads=%d writes=%d read_bytes=%d" % (
    sys.argv[1], j["error"], j["read"]["total_ios"], j["write"]["total_ios"],
    j["read"]["io_bytes"]))
PY
}

for c in "null write 0" "null read 5" "zero read 0" "zero write 0" "full read 0" "full write 28" \
         "zero randread 0"; do
  set -- $c
  for engine in psync libaio; do
    args=(--name=c --filename=/dev/$1 --rw=$2 --bs=4k --size=64k --ioengine=$engine --iodepth=1)
    f=$(outcome fio "${args[@]}")
    b=$(outcome bb "${args[@]}")
    echo "/dev/$1 $2 $engine: fio '$f', block-bench '$b'"
    # The two documented differences: fio's libaio outcome is pinned (so a
    # change in fio shows), block-bench's equals fio's psync one.
    fio_libaio=
    case "$1 $2 $engine" in
      "null read libaio") fio_libaio="exit=0 error=0 reads=16 writes=0 read_bytes=0" ;;
      "full write libaio") fio_libaio="exit=1 error=22 reads=0 writes=1 read_bytes=0" ;;
    esac
    if [ -n "$fio_libaio" ]; then
      [ "$f" = "$fio_libaio" ] || fail "fio's $1 $2 $engine changed: '$f' (update docs/block-bench.md)"
      [ "$b" = "$sync_outcome" ] || fail "/dev/$1 $2 libaio: '$b', not '$sync_outcome'"
      continue
    fi
    [[ $f == *" error=$3 "* ]] || fail "/dev/$1 $2: fio's own outcome '$f', not error=$3"
    [ "$b" = "$f" ] || fail "/dev/$1 $2 $engine: block-bench '$b', fio '$f'"
    sync_outcome=$f
  done
done

"$BB" --name=c --filename=/dev/zero --rw=read --bs=4k >nosize.txt 2>&1 &&
  fail "no size= ran: $(cat nosize.txt)"
grep -q "filename=/dev/zero is a character device, which has no length: the job needs size=" \
  nosize.txt || fail "no size=: $(cat nosize.txt)"
echo PASS

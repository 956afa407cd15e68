#!/bin/bash
# fio's nowait=1 on the binary, beside fio 3.33, on a real file: every read
# and write goes with RWF_NOWAIT, so what would block fails instead, with
# the kernel's error, as fio's:
#  * a buffered read of pages not in the cache (invalidate=1 drops them)
#    fails with EAGAIN on pvsync2, libaio (direct=0) and io_uring; with the
#    pages cached (pre_read=1, invalidate=0) every read succeeds;
#  * a buffered write gets what the file system says (ext4 has no
#    non-blocking buffered write: EOPNOTSUPP);
#  * O_DIRECT reads of a written file do not block: they succeed;
#  * nowait= with another engine is an error naming the option.
# The job's error and exit status are fio's, and the I/O count where no
# error ends the job.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
require_tool fincore util-linux
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/nowait.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd
head -c $((1 << 20)) /dev/urandom >data
sync data

# uncached: none of data's pages in the page cache.  A read that failed
# with EAGAIN starts the kernel's readahead, and pages it has in flight when
# the next run's invalidate=1 (posix_fadvise DONTNEED) comes are not
# dropped (nor counted by mincore until they are read), so that run's reads
# would find them cached: drop the pages until none is left 0.2 s later
# (fincore counts the cached ones).
uncached() {
  local i
  for i in $(seq 50); do
    sleep 0.2
    python3 -c 'import os; fd = os.open("data", os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)'
    [ "$(fincore --noheadings --output PAGES data)" -eq 0 ] || continue
    sleep 0.2
    [ "$(fincore --noheadings --output PAGES data)" -eq 0 ] && return 0
  done
  fail "data's pages stay in the page cache: $(fincore data)"
}

# outcome TOOL ARGS...: "exit=S error=E reads=R writes=W" of one run (JSON).
outcome() {
  local tool=$1; shift
  [[ " $* " == *" --pre_read=1 "* ]] || uncached
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio)
  "${cmd[@]}" --output-format=json --output=out.json "$@" >out.txt 2>&1
  local st=$?
  python3 - "$st" <<'PY' || cat out.txt out.json
import json, sys
text = open("out.json").read()
j = json.loads(text[text.index("{"):])["jobs"][0]
print("exit=%s error=%d reads=%d writes=%d" % (
    sys.argv[1], j["error"], j["read"]["total_ios"], j["write"]["total_ios"]))
PY
}

# agree NAME WANT F B: fio's outcome F is WANT's and block-bench's B is
# fio's; else a line saying why, and false.
agree() {
  local name=$1 want=$2 f=$3 b=$4
  case "$f" in exit=*\ error=$want\ *) ;; *) echo "$name: fio's own outcome '$f', not error=$want"; return 1 ;; esac
  if [[ $f == *" error=0 "* ]]; then
    [ "$b" = "$f" ] || { echo "$name: block-bench '$b', fio '$f'"; return 1; }
  else
    # How many I/Os were in flight when the first failed depends on when
    # each tool reaps (fio when its queue is full, block-bench at once):
    # 1 to iodepth (4) of them; the error and exit status are fio's.
    [ "${b% reads=*}" = "${f% reads=*}" ] || { echo "$name: block-bench '$b', fio '$f'"; return 1; }
    [[ $b =~ reads=([0-9]+)\ writes=([0-9]+) ]] || { echo "$name: '$b'"; return 1; }
    local n=$((BASH_REMATCH[1] + BASH_REMATCH[2]))
    ((n >= 1 && n <= 4)) || { echo "$name: $n I/Os counted, want 1 to 4"; return 1; }
  fi
}

# same NAME WANT_ERROR ARGS...: fio and block-bench agree on ARGS, and fio's
# own error is WANT_ERROR ("" for any: the file system decides).  What a
# buffered read finds depends on the page cache, which the kernel's
# readahead fills behind the tools' backs (a NOWAIT read that fails starts
# it), so a disagreement is tried again, up to 3 times in all; a tool that
# ignored nowait would disagree every time.
same() {
  local name=$1 want=$2; shift 2
  # (fio reads an engine's options only after its ioengine=.)
  local args=(--name=nw --filename="$T/data" --size=1m --bs=4k --iodepth=4 "$@")
  [[ " $* " == *" --nowait="* ]] || args+=(--nowait=1)
  local f b why attempt
  for attempt in 1 2 3; do
    f=$(outcome fio "${args[@]}")
    b=$(outcome bb "${args[@]}")
    echo "$name: fio '$f', block-bench '$b'"
    why=$(agree "$name" "$want" "$f" "$b") && return 0
    echo "attempt $attempt: $why"
  done
  fail "$why"
}
E="[0-9]*"
same pvsync2-uncached 11 --ioengine=pvsync2 --rw=read
same pvsync2-cached 0 --ioengine=pvsync2 --rw=read --invalidate=0 --pre_read=1
same pvsync2-write "$E" --ioengine=pvsync2 --rw=write
same libaio-buffered 11 --ioengine=libaio --rw=read
same libaio-direct 0 --ioengine=libaio --rw=randread --direct=1
same uring-buffered 11 --ioengine=io_uring --rw=read
same uring-direct 0 --ioengine=io_uring --rw=randread --direct=1
# Without nowait the same uncached read succeeds (the flag is what failed it).
same pvsync2-plain 0 --ioengine=pvsync2 --rw=read --nowait=0

# An engine without it: an error naming the option and the engines.
"$BB" --name=nw --filename="$T/data" --size=1m --ioengine=psync --nowait=1 >psync.out 2>&1 &&
  fail "psync with nowait=1 ran: $(cat psync.out)"
grep -q "nowait.*only valid with ioengine=pvsync2, libaio or io_uring (ioengine is psync)" psync.out ||
  fail "psync with nowait=1: $(cat psync.out)"
echo PASS

#!/bin/bash
# fio's invalidate=1 where fio repeats it, on the binary beside fio 3.33,
# through strace -f: the successful posix_fadvise(POSIX_FADV_DONTNEED)
# calls on each file of a buffered job.  fio drops a file's cache when it
# opens it -- once per loop of loops=N, for every file -- and a time based
# job drops a file's cache each time its offsets wrap (sequential: past the
# end; random: a full random map; never with norandommap); and verify's
# read-back starts with a drop, so that it reads the device.  Without that a
# buffered job reads its file from the page cache after the first pass,
# where fio reads the device (a 64 MiB time based read measured 4.6x
# fio's bandwidth before).  invalidate=0 makes none.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/invalidate.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool strace strace
require_tool python3 python3
cd "$T" || fail cd

# drops TOOL ARGS...: the successful DONTNEED calls of TOOL's run of the job
# ARGS (files in $T/d, laid out by an earlier run so that no layout counts),
# then a space and the job's bytes moved (JSON).
drops() {
  local tool=$1; shift
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio)
  "${cmd[@]}" --name=j --directory="$T/d" --ioengine=psync "$@" >/dev/null 2>&1 ||
    fail "$tool $* (layout)"
  # One trace file per thread (-ff): calls of two threads at once are not
  # split into "unfinished" and "resumed" lines.  LeakSanitizer cannot run
  # under ptrace.
  rm -f tr.txt tr.txt.*
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -ff -o tr.txt -e trace=fadvise64 "${cmd[@]}" --name=j --directory="$T/d" \
    --ioengine=psync "$@" --output-format=json --output=o.json >out.txt 2>&1 ||
    fail "$tool $*: $(cat out.txt)"
  cat tr.txt.* >tr.txt
  local n
  n=$(grep -c "POSIX_FADV_DONTNEED) = 0" tr.txt)
  echo "$n $(python3 -c '
import json
t = open("o.json").read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["read"]["io_bytes"] + j["write"]["io_bytes"])')"
}

rm -rf d && mkdir d
# Exact counts: one per file per loop and one before each verify read-back;
# once with norandommap (no wrap).
for c in "3 --rw=read --bs=64k --size=1m --loops=3" \
         "6 --rw=randread --bs=16k --size=1m --loops=3 --nrfiles=2" \
         "2 --rw=randwrite --bs=16k --size=1m --loops=2" \
         "1 --rw=read --bs=64k --size=1m --loops=1" \
         "0 --rw=read --bs=64k --size=1m --loops=3 --invalidate=0" \
         "1 --rw=randread --bs=16k --size=1m --time_based --runtime=1 --norandommap" \
         "2 --rw=write --bs=64k --size=1m --verify=crc32c" \
         "4 --rw=randwrite --bs=16k --size=1m --verify=crc32c --loops=2" \
         "0 --rw=write --bs=64k --size=1m --verify=crc32c --invalidate=0"; do
  set -- $c
  want=$1; shift
  f=$(drops fio "$@"); b=$(drops bb "$@")
  [ "${f%% *}" = "$want" ] || fail "fio made ${f%% *} drops, not $want: $*"
  [ "${b%% *}" = "$want" ] || fail "block-bench made ${b%% *} drops, fio $want: $*"
  echo "$want drops, as fio: $*"
done

# The range dropped is the job's region of the file, as fio's: the offset
# and length of each call equal fio's (a 4 MiB file, a 1 MiB region at 1
# MiB; each clone of offset_increment its own).
ranges() {
  local tool=$1; shift
  drops "$tool" "$@" >/dev/null
  grep "POSIX_FADV_DONTNEED) = 0" tr.txt | sed -E 's/.*fadvise64\([0-9]+, ([0-9]+), ([0-9]+),.*/\1 \2/' | sort | uniq -c
}
rm -rf d && mkdir d && truncate -s 4m d/r.dat
for c in "--filename=r.dat --rw=read --bs=64k --offset=1m --size=1m --loops=2" \
         "--filename=r.dat --rw=read --bs=64k --size=1m --offset_increment=2m --numjobs=2"; do
  # shellcheck disable=SC2086
  f=$(ranges fio $c); b=$(ranges bb $c)
  [ -n "$f" ] || fail "fio made no drop: $c"
  [ "$b" = "$f" ] || fail "dropped ranges (count offset length): block-bench '$b', fio '$f': $c"
  echo "same ranges dropped as fio: $(echo $f) : $c"
done

# Time based: one drop per wrap of the 4 MiB file (the bytes moved tell how
# many), besides the first, for both tools.
for c in "--rw=read --bs=64k" "--rw=randread --bs=64k" "--rw=write --bs=64k"; do
  for tool in fio bb; do
    # shellcheck disable=SC2086
    r=$(drops $tool $c --size=4m --time_based --runtime=1)
    n=${r%% *} bytes=${r##* }
    wraps=$((bytes / (4 << 20)))
    [ "$wraps" -ge 2 ] || fail "$tool $c: only $bytes bytes in 1 s"
    # The wrap that a last, unfinished pass began may or may not count.
    [ "$n" -ge "$wraps" ] && [ "$n" -le $((wraps + 2)) ] ||
      fail "$tool $c time based: $n drops for $bytes bytes ($wraps wraps)"
    echo "$tool $c time based: $n drops, $wraps wraps"
  done
done
echo PASS

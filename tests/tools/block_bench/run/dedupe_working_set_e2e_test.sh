#!/usr/bin/env bash
# dedupe_mode=working_set, dedupe_working_set_percentage and dedupe_global
# on real files, block-bench and fio 3.33 side by side (the same job), each
# file's 4 KiB blocks counted by content:
#  * dedupe_percentage=50 with a working set of 10% of 4 MiB (102 blocks):
#    about half the 1024 blocks are distinct, and every repeated content is
#    one of the working set's (at most 102 contents occur more than once;
#    dedupe_mode=repeat repeats far more different contents);
#  * dedupe_global=1 over two jobs: the working set is spread over both
#    (51 entries each), so the two files share up to 102 contents and
#    each holds about 51 more distinct ones; without it they share none;
#  * fio's refusals (no size=, working set + dedupe over 100%) and an empty
#    working set are errors naming the job file, line and option.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
cd "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
# "distinct repeated": distinct block contents, contents occurring twice or more.
stats() {
  python3 - "$1" <<'PY'
import collections, sys
d = open(sys.argv[1], 'rb').read()
c = collections.Counter(d[i:i + 4096] for i in range(0, len(d), 4096))
print(len(c), sum(1 for v in c.values() if v > 1))
PY
}
# "distinct0 distinct1 shared" of two files.
pair() {
  python3 - "$1" "$2" <<'PY'
import sys
def blocks(p):
    d = open(p, 'rb').read()
    return {d[i:i + 4096] for i in range(0, len(d), 4096)}
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
print(len(a), len(b), len(a & b))
PY
}
run() {  # run TOOL ARGS...: the tool's job, output thrown away
  local tool=$1; shift
  if [[ $tool == bb ]]; then "$BB" "$@" > "$T/out.txt" 2>&1 || fail "bb $*: $(cat "$T/out.txt")"
  else fio --output="$T/out.txt" "$@" >/dev/null 2>&1 || fail "fio $*: $(cat "$T/out.txt")"; fi
}
J=(--rw=write --bs=4k --size=4m --dedupe_percentage=50)
for tool in bb fio; do
  rm -f ws.$tool rp.$tool
  run $tool --name=w --filename=ws.$tool "${J[@]}" --dedupe_mode=working_set \
    --dedupe_working_set_percentage=10
  read -r distinct repeated < <(stats ws.$tool)
  echo "$tool working_set: $distinct distinct blocks of 1024, $repeated contents repeated (set: 102)"
  (( distinct >= 430 && distinct <= 600 )) || fail "$tool working_set: $distinct distinct"
  (( repeated <= 102 && repeated >= 90 )) || fail "$tool working_set: $repeated contents repeated"
  run $tool --name=w --filename=rp.$tool "${J[@]}" --dedupe_mode=repeat
  read -r distinct repeated < <(stats rp.$tool)
  echo "$tool repeat: $distinct distinct, $repeated contents repeated"
  (( distinct >= 430 && distinct <= 600 && repeated > 204 )) || fail "$tool repeat: $distinct $repeated"
  # The default set is 5% (51 blocks).
  rm -f ws.$tool
  run $tool --name=w --filename=ws.$tool "${J[@]}" --dedupe_mode=working_set
  read -r distinct repeated < <(stats ws.$tool)
  (( repeated <= 51 && repeated >= 40 )) || fail "$tool default working set: $repeated contents repeated"

  for g in 0 1; do
    rm -f g0.$tool g1.$tool
    run $tool "${J[@]}" --dedupe_mode=working_set --dedupe_working_set_percentage=10 \
      --dedupe_global=$g --name=a --filename=g0.$tool --name=b --filename=g1.$tool
    read -r d0 d1 shared < <(pair g0.$tool g1.$tool)
    echo "$tool dedupe_global=$g: distinct $d0 and $d1, $shared shared"
    if (( g )); then
      (( shared >= 90 && shared <= 102 )) || fail "$tool dedupe_global=1: $shared shared"
      (( d0 >= 480 && d0 <= 650 && d1 >= 480 && d1 <= 650 )) || fail "$tool dedupe_global=1: $d0 $d1"
    else
      (( shared == 0 )) || fail "$tool dedupe_global=0: $shared shared"
    fi
  done
done

# Refusals: fio's, and a working set smaller than a block.
check() {  # check NAME EXPECTED-TEXT OPTION-LINES...
  local name=$1 want=$2; shift 2
  printf '[w]\nioengine=null\nrw=write\nbs=4k\n' > "$T/$name.fio"
  printf '%s\n' "$@" >> "$T/$name.fio"
  "$BB" "$T/$name.fio" > "$T/$name.txt" 2>&1 && fail "$name: accepted"
  grep -q "$name.fio.*dedupe_mode=working_set $want" "$T/$name.txt" || fail "$name: $(cat "$T/$name.txt")"
}
check nosize "needs size= in bytes" dedupe_percentage=50 dedupe_mode=working_set
check over "cannot reach dedupe_percentage=80: dedupe_working_set_percentage=30" size=1m \
  dedupe_percentage=80 dedupe_mode=working_set dedupe_working_set_percentage=30
check empty "has an empty working set" size=64k dedupe_percentage=50 dedupe_mode=working_set \
  dedupe_working_set_percentage=1
printf '[w]\nioengine=null\nrw=write\nsize=1m\ndedupe_working_set_percentage=101\n' > "$T/range.fio"
"$BB" "$T/range.fio" > "$T/range.txt" 2>&1 && fail "101% accepted"
grep -q "range.fio.*5.*dedupe_working_set_percentage" "$T/range.txt" || fail "range: $(cat "$T/range.txt")"
echo PASS

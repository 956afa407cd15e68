#!/bin/bash
# cgroup=, cgroup_weight= and cgroup_nodelete= on the binary beside fio
# 3.33, on the machine's real cgroup mount (fio's: the first blkio v1 or
# cgroup2 mount): the group the job's thread runs in (its exec_prerun
# inherits it: /proc/self/cgroup), the group made and removed after the run
# (kept with cgroup_nodelete=1, an existing one kept), the job's error where
# a group cannot be made or weighed, and fio's parse errors.  Local: it
# writes to the host's cgroup file system (root).
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/cgroup.XXXXXX")"
G="blkstack-e2e-$$"
MNT=$(awk '($3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/) || $3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$MNT" ] || fail "no blkio or cgroup2 mount in /proc/mounts"
trap 'rm -rf "$T"; rmdir "$MNT/$G" "$MNT/$G-pre" 2>/dev/null' EXIT
cd "$T" || fail cd
echo "cgroup mount: $MNT"

# run TOOL ARGS...: "error=E group=G after=yes|no" (the group the prerun
# saw, whether $MNT/$G exists after the run).
probe='{ grep -m1 -E "(blkio|^0:):/" /proc/self/cgroup; }'
run() {
  local tool=$1; shift
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio)
  rm -f c.prerun.txt
  "${cmd[@]}" --name=c --ioengine=null --size=64k --thread --exec_prerun="$probe" \
    --output-format=json --output=out.json "$@" >out.txt 2>&1
  local after=no
  [ -d "$MNT/$G" ] && after=yes
  python3 - "$after" <<'PY' || cat out.txt out.json
import json, os, sys
text = open("out.json").read()
jobs = json.loads(text[text.index("{"):])["jobs"]
group = open("c.prerun.txt").read().split(":")[-1].strip() if os.path.exists("c.prerun.txt") else "-"
print("error=%s group=%s after=%s" % (",".join(str(j["error"]) for j in jobs), group, sys.argv[1]))
PY
}

check() {  # check ARGS...: fio and block-bench agree; prints fio's
  local f b
  f=$(run fio "$@")
  rmdir "$MNT/$G" 2>/dev/null
  b=$(run bb "$@")
  rmdir "$MNT/$G" 2>/dev/null
  echo "$*: fio '$f', block-bench '$b'" >&2
  [ "$b" = "$f" ] || fail "$*: block-bench '$b', fio '$f'"
  echo "$f"
}

out=$(check --cgroup="$G")
[ "$out" = "error=0 group=/$G after=no" ] || fail "fio's own cgroup run: $out"
out=$(check --cgroup="$G" --cgroup_nodelete=1)
[ "$out" = "error=0 group=/$G after=yes" ] || fail "fio's own nodelete run: $out"
# Two clones in one group (fio 3.33 aborts here: "smalloc.c:116: mask_clear:
# Assertion" as its thread=1 clones end, so block-bench's run alone).
out=$(run bb --cgroup="$G" --numjobs=2)
[ "$out" = "error=0,0 group=/$G after=no" ] || fail "numjobs=2: $out"
# Without cgroup= the weight does nothing (fio's rule).
out=$(check --cgroup_weight=500)
[[ $out == "error=0 group=/ "* || $out == "error=0 group=/"*" after=no" ]] || fail "weight alone: $out"
# The weight on this kernel: whatever fio gets (EACCES without a
# proportional-weight scheduler's blkio.weight), block-bench gets too.
check --cgroup="$G" --cgroup_weight=500 >/dev/null
# A group whose parent is missing: mkdir's ENOENT.
out=$(check --cgroup="$G/a/b")
[ "$out" = "error=2 group=- after=no" ] || fail "fio's own missing-parent run: $out"
# An existing group is used and kept.
mkdir "$MNT/$G-pre" || fail "mkdir $MNT/$G-pre"
for tool in fio bb; do
  out=$(G="$G-pre" run $tool --cgroup="$G-pre")
  [[ $out == "error=0 group=/$G-pre "* ]] || fail "$tool, existing group: $out"
  [ -d "$MNT/$G-pre" ] || fail "$tool removed a group it did not make"
done

# fio's range for the weight.
for v in 50 1001; do
  fio --name=e --ioengine=null --size=64k --cgroup_weight=$v >fio.txt 2>&1 && fail "fio took cgroup_weight=$v"
  "$BB" --name=e --ioengine=null --size=64k --cgroup_weight=$v >bb.txt 2>&1 &&
    fail "block-bench took cgroup_weight=$v"
  grep -q "cgroup_weight" bb.txt || fail "cgroup_weight=$v: $(cat bb.txt)"
done
echo PASS

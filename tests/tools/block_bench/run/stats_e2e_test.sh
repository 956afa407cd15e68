#!/usr/bin/env bash
# fio's stats=0 on the real binary, beside fio 3.33 with the same job file
# (ioengine=null, fixed sizes: every compared figure is deterministic):
#  * text: the job blocks ("NAME: (groupid=G, jobs=N)") are fio's: a
#    stats=0 job has none, and with group_reporting the group is named
#    after its first job with stats and counts only those clones;
#  * the run status: every group's heading after a blank line, also of a
#    group of stats=0 jobs only (heading alone), and each direction's io= of the jobs with
#    stats only;
#  * JSON: the named jobs and their io_bytes are fio's.  (fio 3.33 also
#    appends an empty entry per left-out clone, with no "jobname" and
#    groupid 4294967295, a slot it allocated and never filled;
#    block-bench does not: the test checks fio still does, so that a change
#    in fio shows here);
#  * write_lat_log / write_bw_log of a stats=0 job: created and empty, as
#    fio's.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

cat >plain.fio <<'JOB'
[global]
ioengine=null
bs=4k
[a]
rw=read
size=1m
stats=0
write_lat_log=a
write_bw_log=a
[b]
rw=read
size=2m
[c]
rw=write
size=1m
stats=0
new_group
[d]
rw=write
size=3m
new_group
JOB
cat >grouped.fio <<'JOB'
[global]
ioengine=null
bs=4k
group_reporting
[x]
rw=read
size=1m
stats=0
[y]
rw=write
size=1m
numjobs=2
[z]
rw=write
size=1m
stats=0
JOB

# summary TEXT: the job headings and the run status lines, without the
# figures that depend on time (bw=, run=) or on the process (pid, date).
summary() {
  sed -n -E -e 's/^([^ ]+: \(groupid=[0-9]+, jobs=[0-9]+\)).*/\1/p' \
    -e 's/^(Run status group [0-9]+ \(all jobs\):)$/\1/p' \
    -e 's/^ *(READ|WRITE|TRIM): .*(io=[^ ]+ \([^)]*\)).*/\1 \2/p' "$1"
}
# named JSON: "jobname groupid read-bytes write-bytes" per entry with a name.
named() {
  python3 -c '
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    if "jobname" in j:
        print(j["jobname"], j["groupid"], j["read"]["io_bytes"], j["write"]["io_bytes"])
' "$1"
}
ghosts() {
  python3 -c '
import json, sys
print(sum(1 for j in json.load(open(sys.argv[1]))["jobs"] if "jobname" not in j))' "$1"
}

for f in plain grouped; do
  rm -f ./*.log
  fio --output=fio-$f.json --output-format=json $f.fio >/dev/null || fail "fio $f.fio (json)"
  rm -f ./*.log
  fio --output=fio-$f.txt $f.fio >/dev/null || fail "fio $f.fio"
  if [[ $f == plain ]]; then
    for l in a_lat.1.log a_clat.1.log a_bw.1.log; do
      [[ -f $l && ! -s $l ]] || fail "fio's $l is not an empty file: $(ls -l a_* 2>&1)"
    done
    rm -f a_*.log
  fi
  "$BB" --output=bb-$f.json --output-format=json $f.fio 2>bb-$f.err ||
    fail "block-bench $f.fio (json): $(cat bb-$f.err)"
  rm -f ./*.log
  "$BB" --output=bb-$f.txt $f.fio 2>bb-$f.err || fail "block-bench $f.fio: $(cat bb-$f.err)"
  summary fio-$f.txt >fio-$f.sum
  summary bb-$f.txt >bb-$f.sum
  [[ -s fio-$f.sum ]] || fail "no summary of fio's $f report: $(cat fio-$f.txt)"
  diff -u fio-$f.sum bb-$f.sum >&2 || fail "$f: text report differs from fio's (above)"
  # fio's blank line before every run status heading.
  awk '/^Run status group/ && prev != "" { bad = 1 } { prev = $0 } END { exit bad }' bb-$f.txt ||
    fail "$f: a run status heading without fio's blank line before it: $(cat bb-$f.txt)"
  named fio-$f.json >fio-$f.named
  named bb-$f.json >bb-$f.named
  diff -u fio-$f.named bb-$f.named >&2 || fail "$f: JSON jobs differ from fio's (above)"
  [[ $(ghosts bb-$f.json) == 0 ]] || fail "$f: block-bench has unnamed JSON entries"
  [[ $f == grouped ]] || (( $(ghosts fio-$f.json) > 0 )) ||
    echo "NOTE: fio no longer writes unnamed entries for stats=0 jobs"
  if [[ $f == plain ]]; then
    for l in a_lat.1.log a_clat.1.log a_bw.1.log; do
      [[ -f $l && ! -s $l ]] || fail "block-bench's $l is not an empty file: $(ls -l a_* 2>&1)"
    done
  fi
done
# What the comparison rests on, spelled out.
grep -qx "Run status group 1 (all jobs):" bb-plain.sum || fail "no heading of c's group"
grep -q "^a: \|^c: \|^x: \|^z: " bb-plain.sum bb-grouped.sum && fail "a stats=0 job was reported"
grep -qx "y: (groupid=0, jobs=2)" bb-grouped.sum || fail "group not named y with 2 jobs: $(cat bb-grouped.sum)"
echo PASS

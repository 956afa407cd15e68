#!/bin/bash
# block-bench's output streams and command-line flags as fio 3.33's, each
# compared with fio run on the same job here:
#   1. stdout/stderr: informational lines on stdout (normal format) or
#      nowhere (json, terse), the synchronous-engine iodepth note among
#      them; stderr empty on runs fio keeps silent;
#      --output-format combinations in fio's order.
#   2. --debug: fio's categories (--debug=?), an unknown one named on stderr
#      and the run goes on; io lines with fio's offsets, lengths and
#      directions; random: a clone's seed follows randseed/randrepeat as
#      fio's t/random_seed.py expects; lines go to --output when given.
#   3. JSON: "global options" (only with a [global] section or options
#      before the first --name), "desc", "job options" as fio echoes them.
# fio is required (scripts/packages.txt): missing, the test fails.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_output.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
cd "$T" || fail cd

# run TOOL TAG ARGS...: runs TOOL (fio or bb) in a fresh directory
# TAG.TOOL, stdout in out, stderr in err; exit status in rc.
run() {
  local tool=$1 tag=$2; shift 2
  local bin=fio; [[ $tool == bb ]] && bin=$BB
  rm -rf "$T/$tag.$tool"; mkdir -p "$T/$tag.$tool"
  (cd "$T/$tag.$tool" && "$bin" "$@" >out 2>err; echo $? >rc)
}
# both TAG ARGS...: fio and block-bench, side by side (fio's runs are slow
# to start: the calls below run in the background, then `wait`).
both() { run fio "$@" & run bb "$@"; wait; }
# same_lines TAG REGEX: both tools' stdout lines matching REGEX are equal.
same_lines() {
  local f b
  f=$(grep -E "$2" "$T/$1.fio/out"); b=$(grep -E "$2" "$T/$1.bb/out")
  [[ "$f" == "$b" ]] || fail "$1: lines /$2/: fio [$f], block-bench [$b]"
}
silent() {
  for t in fio bb; do
    [[ $(cat "$T/$1.$t/rc") == 0 ]] || fail "$1: $t exit $(cat "$T/$1.$t/rc"): $(cat "$T/$1.$t/err")"
    [[ ! -s "$T/$1.$t/err" ]] || fail "$1: $t stderr: $(cat "$T/$1.$t/err")"
  done
}

# ---- 1. stdout / stderr ----
# A new file for a reading job, a writing job, several files, buffered
# libaio (a thread pool here: a header note), log_compression (a note).
both read --name=r --filename=r.dat --size=1m --rw=read &
both write --name=w --filename=w.dat --size=2m --rw=write --bs=64k &
both files --name=f --nrfiles=3 --size=3m --rw=randread &
both aio --name=a --ioengine=libaio --direct=0 --filename=a.dat --size=1m &
both logc --name=c --ioengine=null --size=1m --write_lat_log=c --log_compression=64k &
wait
for tag in read write files aio logc; do
  silent $tag
  same_lines $tag "Laying out"
done
grep -qx "r: Laying out IO file (1 file / 1MiB)" read.bb/out || fail "read: $(cat read.bb/out)"
grep -qx "f: Laying out IO files (3 files / total 3MiB)" files.bb/out || fail "files: $(cat files.bb/out)"
grep -q "^a: note: ioengine=libaio with direct=0 runs on the thread pool" aio.bb/out ||
  fail "aio: no header note: $(head -3 aio.bb/out)"
# fio's note when a synchronous engine caps iodepth > 1: once per job,
# never at iodepth=1 or on an engine that queues.
both sync4 --name=s --filename=s.dat --size=64k --iodepth=4 --numjobs=2 &
both sync1 --name=s --filename=s.dat --size=64k --iodepth=1 &
both cpu4 --name=c --ioengine=cpuio --cpuload=10 --iodepth=4 --runtime=1 --time_based &
both posix4 --name=p --ioengine=posixaio --filename=p.dat --size=64k --iodepth=4 &
wait
for tag in sync4 sync1 cpu4 posix4; do
  silent $tag
  same_lines $tag "note: both"
done
[[ $(grep -c "^note: both iodepth >= 1 and synchronous I/O engine are selected" sync4.bb/out) == 2 ]] ||
  fail "sync4: not two notes: $(cat sync4.bb/out)"
# The file is there: nothing to say.
(cd read.bb && "$BB" --name=r --filename=r.dat --size=1m --rw=read >out2 2>err2) || fail "rerun"
grep -q "Laying out" read.bb/out2 && fail "layout line for an existing file"
# JSON and terse on stdout: the document alone, no line before it.
for fmt in json terse; do
  both $fmt --name=r --filename=r.dat --size=1m --rw=read --ioengine=libaio --output-format=$fmt &
done
wait
for fmt in json terse; do
  silent $fmt
  same_lines $fmt "Laying out|note:"
done
python3 -c "import json; json.load(open('json.bb/out'))" || fail "json: stdout is not one document"
# Combined formats: stdout holds what fio's holds, in fio's order (header,
# Starting, Laying out, terse, JSON, text), stderr nothing.
skeleton() {
  python3 - "$1" <<'PY'
import re, sys
kinds = []
for line in open(sys.argv[1]):
    for kind, rx in (("header", r"^\w+: \(g=\d+\)"), ("version", r"^(fio|block-bench)-"),
                     ("starting", r"^Starting "), ("layout", r"^\w+: Laying out"),
                     ("json", r"^\{$"), ("terse", r"^3;"), ("text", r"^\w+: \(groupid="),
                     ("status", r"^Run status group")):
        if re.match(rx, line) and (not kinds or kinds[-1] != kind):
            kinds.append(kind)
print(" ".join(kinds))
PY
}
for fmt in json,normal terse,json,normal; do
  both "combo.$fmt" --name=r --filename=r.dat --size=1m --rw=read --output-format=$fmt &
done
wait
for fmt in json,normal terse,json,normal; do
  silent "combo.$fmt"
  f=$(skeleton "combo.$fmt.fio/out"); b=$(skeleton "combo.$fmt.bb/out")
  [[ "$f" == "$b" ]] || fail "--output-format=$fmt: fio [$f], block-bench [$b]"
done

# ---- 2. --debug ----
"$BB" --debug=? >dl.bb || fail "--debug=?"
fio --debug=? >dl.fio
[[ "$(grep -o 'options:.*' dl.bb)" == "$(grep -o 'options:.*' dl.fio)" ]] ||
  fail "--debug=?: $(cat dl.bb) vs $(cat dl.fio)"
both dbgio --debug=io,nosuch --name=d --ioengine=null --size=32k --rw=write --bs=8k &
both dbgp --debug=parse,file,job,verify --name=p --ioengine=null --size=8k --rw=randread &
wait
for t in fio bb; do
  [[ $(cat dbgio.$t/rc) == 0 ]] || fail "$t --debug=nosuch: exit $(cat dbgio.$t/rc)"
  grep -q "debug mask nosuch not found" dbgio.$t/err || fail "$t: $(cat dbgio.$t/err)"
done
# fio's queue lines: off, len, ddir in issue order.
ios() { grep -E '^io +[0-9]+ +queue: ' "$1" | grep -oE 'off=0x[0-9a-f]+,len=0x[0-9a-f]+,ddir=[0-9]'; }
[[ -n "$(ios dbgio.fio/out)" && "$(ios dbgio.fio/out)" == "$(ios dbgio.bb/out)" ]] ||
  fail "io lines: fio [$(ios dbgio.fio/out | tr '\n' ' ')] block-bench [$(ios dbgio.bb/out | tr '\n' ' ')]"
# random: the seed lines (thread ids aside) of two runs.
seeds() {
  (cd "$T" && "$BB" --debug=random --name=random_seed --ioengine=null --size=32k --rw=randread \
    "$@" --output=seeds.out >/dev/null 2>&1) || fail "random run $*"
  grep random "$T/seeds.out" | grep -o 'seed [0-9]* from .*' || fail "no seed line: $(cat "$T/seeds.out")"
}
grep -q "seed [0-9]* from randseed=12345$" <<<"$(seeds --randseed=12345)" || fail "no randseed line"
[[ "$(seeds --randseed=12345)" == "$(seeds --randseed=12345 --randrepeat=0)" ]] ||
  fail "randseed=12345 gave different seeds"
[[ "$(seeds --randseed=12345)" != "$(seeds --randseed=67890)" ]] || fail "randseeds differ, seeds equal"
[[ "$(seeds --randrepeat=1)" == "$(seeds --randrepeat=1)" ]] || fail "randrepeat=1 seeds differ"
[[ "$(seeds --randrepeat=0)" != "$(seeds --randrepeat=0)" ]] || fail "randrepeat=0 seeds repeat"
[[ "$(seeds --randrepeat=0)" != "$(seeds --randrepeat=1)" ]] || fail "randrepeat=0 gave the fixed seed"
# parse, file, job: present; a category with no lines of block-bench's
# (verify) is accepted.
grep -qE '^parse +[0-9]+ +handle_option=rw, ptr=randread$' dbgp.bb/out || fail "parse: $(cat dbgp.bb/out)"
grep -qE '^file +[0-9]+ +p: file 0 .*: closed$' dbgp.bb/out || fail "file: $(cat dbgp.bb/out)"
grep -qE '^job +[0-9]+ +p \(clone 0\): done, 2 I/Os$' dbgp.bb/out || fail "job: $(cat dbgp.bb/out)"
[[ ! -s dbgp.bb/err ]] || fail "debug run stderr: $(cat dbgp.bb/err)"
# --parse-only needs no job, and --debug=parse prints fio's own lines of the
# steadystate parser (fio's t/steadystate_tests.py looks for them).
for a in iops:10 iops:10% iops:.1% bw:10% bw:12; do
  fio --parse-only --debug=parse --ss_dur=10s --ss=$a --ss_ramp=5 > "ssp.fio" 2>&1 || fail "fio --ss=$a"
  "$BB" --parse-only --debug=parse --ss_dur=10s --ss=$a --ss_ramp=5 > "ssp.bb" 2>&1 || fail "block-bench --ss=$a: $(cat ssp.bb)"
  f=$(grep -o 'set steady state.*' ssp.fio); b=$(grep -o 'set steady state.*' ssp.bb)
  [[ -n "$f" && "$f" == "$b" ]] || fail "--ss=$a parse line: fio [$f] block-bench [$b]"
done

# ---- 3. JSON echo of the options ----
cat >g1.fio <<'JOB'
[global]
ioengine=null
size=1m
bs=4k

[j1]
rw=randread
description=first job
iodepth=4
bs=8k
bs=16k

[j2]
rw=write
numjobs=2
stonewall
JOB
printf '[j]\nioengine=null\nsize=64k\n' >g2.fio
printf '[global]\nthread\n[j]\nioengine=null\nsize=64k\ngroup_reporting\ndescription=a b c\n' >g3.fio
echo_of() {
  python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("\n{") + 1:] if not text.startswith("{") else text)
print(json.dumps(d.get("global options")))
for j in d["jobs"]:
    print(j["jobname"], json.dumps(j.get("desc")), json.dumps(j["job options"]))
PY
}
both echo1 "$T/g1.fio" --output-format=json &
both echo2 "$T/g2.fio" --output-format=json &
both echo3 "$T/g3.fio" --output-format=json &
both echo4 --ioengine=null --size=64k --name=a --bs=4k --bs=8k --thread --name=b --rw=write --output-format=json &
both echo5 --name=a --ioengine=null --size=64k --description=x --output-format=json &
wait
for tag in echo1 echo2 echo3 echo4 echo5; do
  [[ $(cat $tag.fio/rc) == 0 && $(cat $tag.bb/rc) == 0 ]] || fail "$tag: $(cat $tag.bb/err)"
  f=$(echo_of $tag.fio/out) b=$(echo_of $tag.bb/out)
  [[ -n "$f" && "$f" == "$b" ]] || fail "$tag: fio [$f] block-bench [$b]"
done

echo PASS

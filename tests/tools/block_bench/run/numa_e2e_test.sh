#!/bin/bash
# numa_cpu_nodes= and numa_mem_policy= on the binary beside fio 3.33: the
# CPUs and memory policy a job's thread runs with (what its exec_prerun
# command inherits: /proc/self/status's Cpus_allowed_list and the policy
# /proc/self/numa_maps shows), the JSON echo of the options, and the errors
# of values fio refuses, with fio's messages.  Every Linux has node 0; the
# node past the last one is the machine's missing node.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/numa.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd
missing=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)

# placement TOOL ARGS...: the prerun's view of the thread, one line, and
# the options echoed in the JSON report.
probe='{ grep Cpus_allowed_list /proc/self/status; grep -m1 -oE "(prefer|bind|interleave|local|default)[a-z]*(:[0-9,-]+)?" /proc/self/numa_maps; }'
placement() {
  local tool=$1; shift
  local cmd=("$BB")
  [ "$tool" = fio ] && cmd=(fio)
  rm -f p.prerun.txt
  "${cmd[@]}" --name=p --ioengine=null --size=64k --exec_prerun="$probe" \
    --output-format=json --output=out.json "$@" >out.txt 2>err.txt || {
    echo "exit $?: $(cat out.txt err.txt)"; return; }
  python3 - <<'PY'
import json
text = open("out.json").read()
j = json.loads(text[text.index("{"):])["jobs"][0]
o = j["job options"]
print(" ".join(open("p.prerun.txt").read().split()),
      "| echo:", " ".join("%s=%s" % (k, o[k]) for k in sorted(o) if k.startswith("numa")),
      "| error:", j["error"])
PY
}

for args in "--numa_cpu_nodes=0" "--numa_cpu_nodes=all" "--cpus_allowed=0 --numa_cpu_nodes=0" \
            "--numa_mem_policy=bind:0" "--numa_mem_policy=bind:all" "--numa_mem_policy=interleave" \
            "--numa_mem_policy=interleave:0" "--numa_mem_policy=prefer:0" "--numa_mem_policy=prefer:" \
            "--numa_mem_policy=local" "--numa_mem_policy=default" \
            "--numa_cpu_nodes=0 --numa_mem_policy=bind:0" "--numa_mem_policy=prefer:$missing"; do
  # shellcheck disable=SC2086
  f=$(placement fio $args)
  # shellcheck disable=SC2086
  b=$(placement bb $args)
  echo "$args: fio '$f', block-bench '$b'"
  [[ $f == Cpus_allowed_list* ]] || fail "fio's own run of $args: '$f'"
  [ "$b" = "$f" ] || fail "$args: block-bench '$b', fio '$f'"
done
# The policy reached the thread (not only the echo): bind shows as bind:0.
[[ $(placement bb --numa_mem_policy=bind:0) == *" bind:0 "* ]] || fail "bind:0 not applied"

# Values fio refuses: both exit non-zero, block-bench's error names the
# option and carries fio's message; a job file's names its line.
for c in "numa_cpu_nodes=$missing|numa_parse_nodestring failed" \
         "numa_cpu_nodes=0-$missing|numa_parse_nodestring failed" \
         "numa_mem_policy=bind:$missing|numa_parse_nodestring failed" \
         "numa_mem_policy=prefer:0,1|one node only for 'prefer'" \
         "numa_mem_policy=prefer|one node is needed for 'prefer'" \
         "numa_mem_policy=local:0|NO nodelist for 'local'" \
         "numa_mem_policy=bind|a nodelist is needed for 'bind'" \
         "numa_mem_policy=bogus|memory policy should be: default, prefer, bind, interleave, local"; do
  opt=${c%%|*} msg=${c#*|}
  fio --name=e --ioengine=null --size=64k "--$opt" >fio.txt 2>&1 && fail "fio ran $opt"
  grep -qF "fio: $msg" fio.txt || fail "fio's message for $opt changed: $(cat fio.txt)"
  "$BB" --name=e --ioengine=null --size=64k "--$opt" >bb.txt 2>&1 && fail "block-bench ran $opt"
  grep -qF "$msg" bb.txt || fail "$opt: $(cat bb.txt)"
  grep -qF "${opt%%=*}" bb.txt || fail "$opt: the option is not named: $(cat bb.txt)"
  printf '[e]\nioengine=null\nsize=64k\n%s\n' "$opt" >bad.fio
  "$BB" bad.fio >bb.txt 2>&1 && fail "block-bench ran bad.fio ($opt)"
  grep -qF "bad.fio:4:" bb.txt || fail "bad.fio ($opt): no file and line: $(cat bb.txt)"
done
echo PASS

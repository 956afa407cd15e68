#!/usr/bin/env bash
# Benchmarks the host-loop adapters: the same emulator workload on the native
# loop, under libevent and under Boost.Asio, alternating, medians of RUNS.
# Usage: tools/emulator/compare_loops.sh [SECONDS] [RUNS] [SPEC]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-3}
runs=${2:-3}
spec=${3:-driver=null,size=8G}
bazel build --noshow_progress //tools/emulator >/dev/null 2>&1
emu=bazel-bin/tools/emulator/emulator
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A iops cpu
for ((i = 0; i < runs; i++)); do
  for loop in native libevent asio; do
    out=$($emu --loop=$loop --seconds="$secs" --spec="$spec" --json)
    iops[$loop]+="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["iops"])' <<<"$out") "
    cpu[$loop]+="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_ns_per_io"])' <<<"$out") "
  done
done
echo "spec: $spec, 4 queues x depth 16, ${secs}s x $runs runs (medians)"
printf "%-9s %12s %14s %10s\n" loop IOPS "CPU ns/IO" "vs native"
base=$(tr ' ' '\n' <<<"${iops[native]}" | grep . | median)
for loop in native libevent asio; do
  m=$(tr ' ' '\n' <<<"${iops[$loop]}" | grep . | median)
  c=$(tr ' ' '\n' <<<"${cpu[$loop]}" | grep . | median)
  printf "%-9s %12.0f %14.1f %9.3fx\n" "$loop" "$m" "$c" "$(python3 -c "print($m/$base)")"
done

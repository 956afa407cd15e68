#!/usr/bin/env bash
# Compares the block layer on the null driver (null_bench) with fio's null
# engine tuned for peak (submissions and completions batched up to the queue
# depth: --iodepth_batch_submit=QD --iodepth_batch_complete_min=1
# --iodepth_batch_complete_max=QD; latency measurement kept, as null_bench
# keeps its own), in the same run, alternating the two, and prints medians of
# N runs and the ratio.  FIO_DEFAULTS=1 runs fio with its defaults instead
# (one request per submit), labelled so.
# Usage: tools/bench/null_compare.sh [SECONDS] [RUNS]
# Needs fio (installed by scripts/setup.sh) and a built null_bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-5}
runs=${2:-3}
bazel build -c opt //tools/bench:null_bench >/dev/null 2>&1 || bazel build //tools/bench:null_bench
bench=bazel-bin/tools/bench/null_bench
command -v fio >/dev/null || { echo "null_compare: fio not found (run scripts/setup.sh)" >&2; exit 1; }

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

fio_label="fio tuned"
[ "${FIO_DEFAULTS:-0}" = 1 ] && fio_label="fio defaults"
printf "%5s %14s %14s %8s %12s %12s\n" QD "blkstack IOPS" "$fio_label" ratio "blk usr%" "fio usr%"
for qd in 1 32 128; do
  tuned=(--iodepth_batch_submit="$qd" --iodepth_batch_complete_min=1 --iodepth_batch_complete_max="$qd")
  [ "${FIO_DEFAULTS:-0}" = 1 ] && tuned=()
  b_iops=(); f_iops=(); b_cpu=(); f_cpu=()
  for ((i = 0; i < runs; i++)); do
    out=$($bench --seconds="$secs" --qd="$qd" --json)
    b_iops+=("$(python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["iops"])' <<<"$out")")
    b_cpu+=("$(python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(100*r["usr_s"]/r["seconds"])' <<<"$out")")
    out=$(fio --name=n --ioengine=null --rw=randread --bs=4k --iodepth="$qd" --size=100G \
              --runtime="$secs" --time_based "${tuned[@]}" --output-format=json 2>/dev/null)
    f_iops+=("$(python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["read"]["iops"])' <<<"$out")")
    f_cpu+=("$(python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["usr_cpu"])' <<<"$out")")
  done
  bm=$(printf "%s\n" "${b_iops[@]}" | median)
  fm=$(printf "%s\n" "${f_iops[@]}" | median)
  bc=$(printf "%s\n" "${b_cpu[@]}" | median)
  fc=$(printf "%s\n" "${f_cpu[@]}" | median)
  printf "%5s %14.0f %14.0f %8.2f %12.1f %12.1f\n" "$qd" "$bm" "$fm" \
    "$(python3 -c "print($bm/$fm)")" "$bc" "$fc"
done

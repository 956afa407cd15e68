#!/bin/bash
# mpi_compare.sh: what running under MPI costs block-bench, on one host.
#
# For N in NS (default "3 6") ranks on the null driver (4k randread, QD1,
# SECS seconds, time_based), alternating in each round:
#   plain: N block-bench processes started together without MPI (the same
#          CPU contention, no MPI at all), their IOPS summed;
#   mpi:   mpirun -np N block-bench, the "All clients" IOPS;
# and the start skew of the MPI run: the spread of the ranks' first-I/O
# instants (CLOCK_MONOTONIC, one host: blkstack.first_io_monotonic_ns).
# Prints, per N, the medians over ROUNDS rounds: IOPS plain, IOPS mpi, the
# ratio mpi/plain, and the skew (median and max).
#
# Usage: tools/bench/mpi_compare.sh   (env: SECS=3 ROUNDS=5 NS="3 6"
#        BB=path/to/block_bench EXTRA="--rate_iops=20000": more job options,
#        e.g. a rate that leaves the CPUs idle, to tell MPI's start skew from
#        the scheduler's when the ranks outnumber the cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${SECS:-3}
ROUNDS=${ROUNDS:-5}
NS=${NS:-"3 6"}
BB=${BB:-}
if [ -z "$BB" ]; then
  bazel build //tools/block_bench:block_bench >&2
  BB=$(bazel info output_path 2>/dev/null)/k8-opt/bin/tools/block_bench/block_bench
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# shellcheck disable=SC2206  # EXTRA is a list of options
JOB=(--name=m --ioengine=null --rw=randread --bs=4k --size=1g --runtime="$SECS" --time_based
     --output-format=json ${EXTRA:-})

plain() {  # plain N: summed IOPS of N concurrent plain processes
  local n=$1 i pids=()
  for ((i = 0; i < n; i++)); do
    "$BB" "${JOB[@]}" --output="$W/p$i.json" 2>/dev/null & pids+=($!)
  done
  wait "${pids[@]}"
  python3 - "$W" "$n" <<'PY'
import json, sys
print(sum(json.load(open("%s/p%d.json" % (sys.argv[1], i)))["jobs"][0]["read"]["iops"]
          for i in range(int(sys.argv[2]))))
PY
}

mpi() {  # mpi N: "All clients" IOPS and the start skew in us
  mpirun --oversubscribe --mca btl self,vader -np "$1" "$BB" "${JOB[@]}" --output="$W/m.json" 2>/dev/null
  python3 - "$W/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cs = d.get("client_stats", d["jobs"])  # -np 1: the single-host report
a = [j for j in cs if j["jobname"] == "All clients"][0] if "client_stats" in d else cs[0]
t = [j["blkstack"]["first_io_monotonic_ns"] for j in cs if j["jobname"] != "All clients"]
print(a["read"]["iops"], (max(t) - min(t)) / 1000)
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

printf '%-6s %14s %14s %8s %16s %12s\n' ranks "IOPS plain" "IOPS mpi" ratio "skew med (us)" "skew max"
for n in $NS; do
  P=() M=() S=()
  for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2 == 0)); then
      P+=("$(plain "$n")"); read -r iops skew < <(mpi "$n")
    else
      read -r iops skew < <(mpi "$n"); P+=("$(plain "$n")")
    fi
    M+=("$iops") S+=("$skew")
  done
  p=$(median "${P[@]}") m=$(median "${M[@]}") s=$(median "${S[@]}")
  smax=$(printf '%s\n' "${S[@]}" | sort -g | tail -1)
  printf '%-6s %14.0f %14.0f %8.3f %16.1f %12.1f\n' "$n" "$p" "$m" \
    "$(python3 -c "print($m / $p)")" "$s" "$smax"
done

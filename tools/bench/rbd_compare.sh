#!/usr/bin/env bash
# Compares driver=rbd (every completion method) with fio --ioengine=rbd and
# `rbd bench` on the same image of the same cluster (filled before any run):
# fio-tuned is fio tuned for peak (--iodepth_batch_submit=32
# --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=32: batched
# submit and reap), fio-defaults is fio with its defaults (one request per
# submit), kept only as that label says;
#   4k randread qd32, 4k randwrite qd32, 4M sequential read qd32.
# bb-* is block-bench running fio's exact job (same options, so the same
# offset stream: fio's random map, every block once per pass) with
# --blockdev=driver=rbd,...,completion=MODE.  blk-* is tools/bench/rbd_bench
# (BlockBackend with its own xorshift offsets, which repeat blocks: with the
# write-around cache a write to a block with a write still in flight waits
# for it, so its randwrite is lower than a random map's; fio with
# --norandommap shows the same drop).  Compare bb-* with fio-tuned.
# Runs alternate between tools (rep 1 of every tool, then rep 2, ..., the
# order rotated each rep); the table shows the median of REPS runs: IOPS,
# MiB/s and the client's CPU time
# per I/O in µs (user + system of the whole client process tree, all librbd
# threads included, from getrusage(RUSAGE_CHILDREN) around each run; connect
# and open are included, so short runs overstate it slightly for everyone).
# fio's own "cpu usr/sys" line counts only its job thread (RUSAGE_THREAD),
# not librbd's threads, so it is not used.
#
# Usage: tools/bench/rbd_compare.sh [SECONDS_PER_RUN=5] [REPS=3]
#   BLK_RBD_BENCH_TOOLS="bb-eventfd bb-bh bb-poll fio-tuned fio-defaults rbd-bench" (subset; also
#     blk-eventfd blk-bh blk-poll)
#   BLK_RBD_BENCH_WORKLOADS="4k-randread 4k-randwrite 4M-read" (subset)
#   BLK_RBD_BENCH_EXTRA=",rados.KEY=VALUE..." appended to the bb-*/blk-* spec
# Needs CEPH_CONF (a cluster from scripts/ceph/cluster.sh start); with
# BLK_RBD_BENCH_START=1 it starts its own (BLK_CEPH_OBJECTSTORE=memstore for
# a RAM-backed OSD) and stops it at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SECS="${1:-5}"
REPS="${2:-3}"
IMAGE=bench
POOL=rbd

if [[ "${BLK_RBD_BENCH_START:-0}" == 1 ]]; then
  CEPH_DIR="$(mktemp -d "${TMPDIR:-/tmp}/blkstack-ceph.XXXXXX")"
  trap 'bash scripts/ceph/cluster.sh stop "$CEPH_DIR" || true' EXIT
  bash scripts/ceph/cluster.sh start "$CEPH_DIR" >/dev/null
  export CEPH_CONF="$CEPH_DIR/ceph.conf"
fi
[[ -n "${CEPH_CONF:-}" ]] || { echo "rbd_compare: set CEPH_CONF (scripts/ceph/cluster.sh start)" >&2; exit 1; }
for b in fio rbd python3; do command -v "$b" >/dev/null || { echo "rbd_compare: $b missing" >&2; exit 1; }; done

bazel build --noshow_progress --curses=no --color=no //tools/bench/rbd_bench:rbd_bench \
  //tools/block_bench:block_bench >&2
# Not the bazel-bin symlink: another build with other flags may move it.
BIN="$(bazel info --noshow_progress bazel-bin 2>/dev/null)"
BENCH="$BIN/tools/bench/rbd_bench/rbd_bench"
BB="$BIN/tools/block_bench/block_bench"

T() { timeout -k 5 "$((SECS * 4 + 60))" "$@"; }

if ! T rbd info "$POOL/$IMAGE" >/dev/null 2>&1; then
  echo "rbd_compare: creating and filling $POOL/$IMAGE (1G)" >&2
  T rbd create --size 1G --image-feature layering "$POOL/$IMAGE"
  T rbd bench --io-type write --io-size 4M --io-threads 8 --io-pattern seq --io-total 1G \
    "$POOL/$IMAGE" >/dev/null
fi

# workload name -> "rw bs"
declare -A WL=([4k-randread]="randread 4096" [4k-randwrite]="randwrite 4096" [4M-read]="read 4194304")
read -r -a WORKLOADS <<<"${BLK_RBD_BENCH_WORKLOADS:-4k-randread 4k-randwrite 4M-read}"
read -r -a TOOLS <<<"${BLK_RBD_BENCH_TOOLS:-bb-eventfd bb-bh bb-poll fio-tuned fio-defaults rbd-bench}"
EXTRA="${BLK_RBD_BENCH_EXTRA:-}"
RESULTS="$(mktemp)"
CPUF="$(mktemp)"
# Runs "$@" and writes the children's user+system CPU seconds to $CPUF.
CPUWRAP=(python3 -c '
import resource, subprocess, sys
p = subprocess.run(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f\n" % (r.ru_utime + r.ru_stime))
sys.exit(p.returncode)' "$CPUF")

run_one() {  # tool workload -> prints "IOPS MIBS"
  local tool="$1" w="$2" rw bs
  read -r rw bs <<<"${WL[$w]}"
  case "$tool" in
    blk-*)
      local mode="${tool#blk-}"
      T "${CPUWRAP[@]}" "$BENCH" --spec="driver=rbd,pool=$POOL,image=$IMAGE,completion=$mode$EXTRA" \
        --rw="$rw" --bs="$bs" --qd=32 --seconds="$SECS" 2>/dev/null |
        sed -n 's/.*IOPS \([0-9.]*\) MiB\/s \([0-9.]*\).*/\1 \2/p'
      ;;
    fio-* | bb-*)
      local job=(--name=r --rw="$rw" --bs="$bs" --iodepth=32 --runtime="$SECS" --time_based
        --output-format=json)
      local cmd=(fio "${job[@]}" --ioengine=rbd --clientname=admin --pool="$POOL" --rbdname="$IMAGE")
      [[ "$tool" == fio-tuned ]] &&
        cmd+=(--iodepth_batch_submit=32 --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=32)
      [[ "$tool" == bb-* ]] &&
        cmd=("$BB" "${job[@]}" --blockdev="driver=rbd,pool=$POOL,image=$IMAGE,completion=${tool#bb-}$EXTRA")
      T "${CPUWRAP[@]}" "${cmd[@]}" 2>/dev/null |
        python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
d = j["write"] if j["write"]["io_bytes"] else j["read"]
print("%.0f %.1f" % (d["iops"], d["bw_bytes"] / 2**20))'
      ;;
    rbd-bench)
      local type=read pattern=rand total
      [[ "$rw" == *write ]] && type=write
      [[ "$rw" == read || "$rw" == write ]] && pattern=seq
      # rbd bench is size-bound, not time-bound: ~SECS at 16k IOPS (4k).
      if [[ "$bs" == 4096 ]]; then total=$((SECS * 16000 * 4096)); else total=$((SECS * 40 * bs)); fi
      T "${CPUWRAP[@]}" rbd bench --io-type "$type" --io-size "$bs" --io-threads 32 --io-pattern "$pattern" \
        --io-total "$total" "$POOL/$IMAGE" 2>/dev/null | tail -1 |
        python3 -c '
import re, sys
l = sys.stdin.read()
ops = float(re.search(r"ops/sec: ([0-9.]+)", l).group(1))
print(f"{ops:.0f} {ops * '"$bs"' / 2**20:.1f}")'
      ;;
  esac
}

for rep in $(seq 1 "$REPS"); do
  # Rotate the tool order every rep: the run after a write workload, or after
  # another tool, is otherwise always the same tool (position bias).
  k=$(((rep - 1) % ${#TOOLS[@]}))
  ORDER=("${TOOLS[@]:k}" "${TOOLS[@]:0:k}")
  for w in "${WORKLOADS[@]}"; do
    for tool in "${ORDER[@]}"; do
      echo nan >"$CPUF"
      out="$(run_one "$tool" "$w" || true)"
      read -r _ bs <<<"${WL[$w]}"
      if [[ -n "$out" ]]; then
        # CPU µs per I/O = CPU s / (MiB/s * SECS * 2^20 / bs); rbd bench is
        # size-bound, its I/O count is its --io-total / bs.
        out="$out $(python3 -c '
import sys
cpu, mib, secs, bs, tool = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if tool == "rbd-bench":
    ios = (secs * 16000 * 4096 if bs == 4096 else secs * 40 * bs) / bs
else:
    ios = mib * 2**20 * secs / bs
print("%.1f" % (cpu / ios * 1e6) if ios > 0 else "nan")' "$(cat "$CPUF")" "${out#* }" "$SECS" "$bs" "$tool")"
      fi
      [[ -n "$out" ]] || out="nan nan nan"
      echo "$w $tool $rep $out" >>"$RESULTS"
      echo "rep $rep $w $tool: $out" >&2
    done
  done
done

python3 - "$RESULTS" "$SECS" "$REPS" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"# median of {sys.argv[3]} runs of {sys.argv[2]} s, iodepth 32 (IOPS / MiB/s / client CPU µs per I/O)")
tools = []
for r in rows:
    if r[1] not in tools: tools.append(r[1])
wls = []
for r in rows:
    if r[0] not in wls: wls.append(r[0])
print("| workload | " + " | ".join(tools) + " |")
print("|---|" + "---|" * len(tools))
for w in wls:
    cells = []
    for t in tools:
        v = [(float(r[3]), float(r[4]), float(r[5])) for r in rows
             if r[0] == w and r[1] == t and r[3] != "nan"]
        if not v:
            cells.append("n/a"); continue
        iops = statistics.median(x[0] for x in v); mib = statistics.median(x[1] for x in v)
        cpu = statistics.median(x[2] for x in v)
        cells.append(f"{iops:.0f} / {mib:.1f} / {cpu:.1f}")
    print(f"| {w} | " + " | ".join(cells) + " |")
EOF
rm -f "$RESULTS" "$CPUF"

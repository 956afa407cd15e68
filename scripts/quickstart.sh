#!/usr/bin/env bash
# README command 1: set up the machine (packages, Bazel), build block-bench
# and run it on the null driver (no device needed): 4k random reads at queue
# depth 32 for 5 seconds, reported like fio.  Extra arguments are passed to
# block-bench (e.g. --output-format=json, or a job file).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh
bazel build --noshow_progress --curses=no --color=no //tools/block_bench:block_bench
if [[ $# -gt 0 ]]; then
  exec "$ROOT/bazel-bin/tools/block_bench/block_bench" "$@"
fi
exec "$ROOT/bazel-bin/tools/block_bench/block_bench" --name=quickstart --ioengine=null \
  --rw=randread --bs=4k --iodepth=32 --size=1G --runtime=5 --time_based --eta=never

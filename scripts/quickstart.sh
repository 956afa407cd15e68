#!/usr/bin/env bash
# README command 1: set up the machine, build the null-driver benchmark and
# run it with its default arguments (extra arguments are passed through).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

TARGET=//tools/bench:null_bench
if ! out="$(bazel query --noshow_progress "$TARGET" 2>&1)"; then
  echo "$out" | grep -E '^ERROR' >&2 || true
  echo "quickstart: $TARGET is not available (does tools/bench/BUILD define null_bench yet?); nothing to run." >&2
  exit 1
fi

bazel build --noshow_progress --curses=no --color=no "$TARGET"
exec "$ROOT/bazel-bin/tools/bench/null_bench" "$@"

#!/usr/bin/env bash
# One step of `git bisect run` for a latency or throughput regression:
# builds the commit checked out, runs `block-bench ab` of the binary it
# built (side B) against a fixed baseline (side A, given in the ab options),
# and exits with the verdict.
#
#   git bisect start BAD GOOD
#   git bisect run tools/bisect/bisect-step.sh [--build=CMD] [--binary=PATH] \
#       [--ab=BLOCK_BENCH] -- --a-bin=/path/to/baseline/block_bench [ab options] \
#       --name=j --rw=randread --bs=4k --size=256m --runtime=2 --time_based ...
#
#   --build=CMD    how to build (sh -c CMD in the work tree; default
#                  "bazel build //tools/block_bench:block_bench")
#   --binary=PATH  what the build made (default bazel-bin/tools/block_bench/block_bench)
#   --ab=PATH      the block-bench that runs the A/B and judges (default:
#                  block-bench on PATH, else the baseline named by --a-bin):
#                  a fixed one, not the commit's own
#
# Exit status, as git bisect run reads it:
#   0    same or better than the baseline ("good")
#   1    worse ("bad")
#   125  cannot tell: the build failed, a run failed, crashed or timed out,
#        or the verdict stayed unknown after ab's --max-rounds ("skip")
#   130  interrupted: git bisect run stops
# Anything else ab might return is mapped to 125, never to a code >= 128
# (which would abort the bisect) or to a "bad" one.
set -uo pipefail

build="bazel build //tools/block_bench:block_bench"
binary="bazel-bin/tools/block_bench/block_bench"
ab=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build=*) build="${1#--build=}" ;;
    --binary=*) binary="${1#--binary=}" ;;
    --ab=*) ab="${1#--ab=}" ;;
    --) shift; break ;;
    *) echo "bisect-step.sh: unknown option '$1' (options end at --)" >&2; exit 125 ;;
  esac
  shift
done
if [ -z "$ab" ]; then
  ab="$(command -v block-bench || true)"
  for a in "$@"; do
    case "$a" in --a-bin=*) [ -z "$ab" ] && ab="${a#--a-bin=}" ;; esac
  done
fi
[ -n "$ab" ] || { echo "bisect-step.sh: no block-bench to run the A/B (--ab=PATH)" >&2; exit 125; }

commit="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if ! sh -c "$build" >&2; then
  echo "bisect-step.sh: $commit: the build failed: skipping this commit (125)" >&2
  exit 125
fi
[ -x "$binary" ] || { echo "bisect-step.sh: $commit: the build made no '$binary' (125)" >&2; exit 125; }

# A copy: the next step's build must not change the binary under test, and
# bazel-bin is a symlink that moves.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/bisect-step.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp "$binary" "$tmp/new" || exit 125

"$ab" ab --b-bin="$tmp/new" "$@"
rc=$?
case "$rc" in
  0) echo "bisect-step.sh: $commit: good (same or better)" >&2 ;;
  1) echo "bisect-step.sh: $commit: bad (worse)" >&2 ;;
  125) echo "bisect-step.sh: $commit: skip (unknown)" >&2 ;;
  130|143) echo "bisect-step.sh: interrupted" >&2; exit 130 ;;
  *) echo "bisect-step.sh: $commit: ab exited $rc: skip" >&2; rc=125 ;;
esac
exit "$rc"

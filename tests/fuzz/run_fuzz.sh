#!/usr/bin/env bash
# Runs one fuzz target as a Bazel test:  run_fuzz.sh MODE BINARY SEED_DIR
#   MODE=replay  (default config)  every seed once, through fuzz_main.cc.
#   MODE=fuzz    (--config=fuzz)   libFuzzer for FUZZ_SECONDS (default 45)
#       from the seeds, new inputs written under $TEST_TMPDIR (never into
#       the source tree); any crash, leak, sanitizer report, timeout (an input
#       taking more than 10 s) or RSS above 2 GiB fails the test, and the
#       input that did it is kept in bazel-testlogs/.../test.outputs/.
# Extra libFuzzer flags may be given in FUZZ_FLAGS (e.g. -max_len=65536).
set -euo pipefail
mode="$1" bin="$2" seeds="$3"

if [[ "$mode" == replay ]]; then
  exec "$bin" "$seeds"
fi

seconds="${FUZZ_SECONDS:-45}"
corpus="$TEST_TMPDIR/corpus"
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/"
mkdir -p "$corpus"
echo "fuzzing $(basename "$bin") for ${seconds}s from $seeds"
# shellcheck disable=SC2086  # FUZZ_FLAGS is a list of flags
exec "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
  -print_final_stats=1 -artifact_prefix="$artifacts" ${FUZZ_FLAGS:-} "$corpus" "$seeds"

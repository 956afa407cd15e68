#!/usr/bin/env bash
# Runs one fuzz target as a Bazel test:  run_fuzz.sh MODE BINARY SEED_DIR
#   MODE=replay  (default config)  every seed once, through fuzz_main.cc.
#   MODE=fuzz    (--config=fuzz)   libFuzzer for FUZZ_SECONDS (default 45)
#       from the seeds, new inputs written under $TEST_TMPDIR (never into
#       the source tree); any crash, leak, sanitizer report, or an input
#       that costs too much fails the test, and the input that did it is
#       kept in bazel-testlogs/.../test.outputs/.  Too much (issue #29):
#         -timeout=5            one input taking more than 5 s;
#         -malloc_limit_mb=256  one allocation above 256 MiB;
#         -rss_limit_mb=512     the process above 512 MiB resident (ASan's
#                               shadow and quarantine included: ~300 MiB
#                               after 10^6 inputs of the trace target).
#       The replay mode (every config) gives fuzz_main.cc the same
#       -timeout and -rss_limit_mb (seeds are small: far below them).
# Extra libFuzzer flags may be given in FUZZ_FLAGS (e.g. -max_len=65536).
set -euo pipefail
mode="$1" bin="$2" seeds="$3"

# Per-input bounds (see above); FUZZ_FLAGS may override the libFuzzer ones.
readonly kTimeoutSeconds=5 kMallocLimitMb=256 kRssLimitMb=512

if [[ "$mode" == replay ]]; then
  exec "$bin" -timeout=$kTimeoutSeconds -rss_limit_mb=$kRssLimitMb "$seeds"
fi

seconds="${FUZZ_SECONDS:-45}"
corpus="$TEST_TMPDIR/corpus"
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/"
mkdir -p "$corpus"
echo "fuzzing $(basename "$bin") for ${seconds}s from $seeds"
# shellcheck disable=SC2086  # FUZZ_FLAGS is a list of flags
exec "$bin" -max_total_time="$seconds" -timeout=$kTimeoutSeconds -rss_limit_mb=$kRssLimitMb \
  -malloc_limit_mb=$kMallocLimitMb -detect_leaks=1 \
  -print_final_stats=1 -artifact_prefix="$artifacts" ${FUZZ_FLAGS:-} "$corpus" "$seeds"

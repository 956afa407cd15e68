#!/bin/bash
# fuzz_main.cc (the seed replayer of every non-fuzz config) bounds each
# input as libFuzzer does (issue #29): -timeout=N fails an input running
# longer than N s (exit 70, naming it), -rss_limit_mb=N fails once the peak
# RSS passes N MiB (exit 71, naming the input); cheap inputs pass.
set -u
BIN="$TEST_SRCDIR/$TEST_WORKSPACE/tests/fuzz/limits_target"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/limits.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$T/ok" "$T/slow" "$T/big"
echo cheap >"$T/ok/a"
echo sleep >"$T/slow/s"
echo grow >"$T/big/g"

"$BIN" -timeout=5 -rss_limit_mb=512 "$T/ok" >"$T/out" 2>&1 || fail "cheap input: $(cat "$T/out")"

"$BIN" -timeout=1 "$T/slow" >"$T/out" 2>&1
rc=$?
[ $rc -eq 70 ] || fail "a 3 s input with -timeout=1 exited $rc: $(cat "$T/out")"
grep -q "timeout (-timeout) on $T/slow/s" "$T/out" || fail "timeout message: $(cat "$T/out")"

"$BIN" -rss_limit_mb=150 "$T/big" >"$T/out" 2>&1
rc=$?
[ $rc -eq 71 ] || fail "200 MiB resident with -rss_limit_mb=150 exited $rc: $(cat "$T/out")"
grep -q "above -rss_limit_mb=150 after $T/big/g" "$T/out" || fail "rss message: $(cat "$T/out")"
echo PASS

#!/usr/bin/env bash
# require_fio.sh: without fio on PATH a test fails under BLK_TEST_NO_SKIP
# and says SKIPPED (exit 0) otherwise; with fio it returns and the test
# goes on.
set -u
H="$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
E="$TEST_TMPDIR/empty"
mkdir -p "$E"
# bash by its full path: PATH holds only an empty directory.
out=$(env -i PATH="$E" BLK_TEST_NO_SKIP=1 "$BASH" -c "source '$H'; require_fio; echo went on" 2>&1)
rc=$?
[[ $rc == 1 && $out == *"FAIL: fio is not installed"* && $out != *"went on"* ]] ||
  fail "no fio, BLK_TEST_NO_SKIP=1: rc $rc, $out"
out=$(env -i PATH="$E" "$BASH" -c "source '$H'; require_fio; echo went on" 2>&1)
rc=$?
[[ $rc == 0 && $out == *SKIPPED* && $out != *"went on"* ]] || fail "no fio: rc $rc, $out"
if command -v fio >/dev/null; then
  out=$(BLK_TEST_NO_SKIP=1 "$BASH" -c "source '$H'; require_fio; echo went on" 2>&1)
  [[ $out == *"went on"* ]] || fail "with fio: $out"
fi
echo PASS

# shellcheck shell=bash
# require_fio: the end-to-end tests that run fio 3.33 beside block-bench
# (the reference for "as fio") call it before they use fio.  Sourced, not
# run:
#   source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
#   require_fio
# With fio on PATH it returns.  Without it the test ends: it fails under
# BLK_TEST_NO_SKIP (set in CI: a missing tool is a broken set-up, not a
# pass), else it says SKIPPED and exits 0.  fio is in scripts/packages.txt.
# A fio other than 3.33 is used, with a note on stdout.
require_fio() {
  if ! command -v fio >/dev/null; then
    if [[ -n "${BLK_TEST_NO_SKIP:-}" ]]; then
      echo "FAIL: fio is not installed (scripts/setup.sh installs it; apt-get install fio)" >&2
      exit 1
    fi
    echo "SKIPPED: fio is not installed (scripts/setup.sh installs it; apt-get install fio)"
    exit 0
  fi
  local v
  v=$(fio --version 2>/dev/null)
  [[ "$v" == fio-3.33 ]] || echo "NOTE: $v, the reference is fio-3.33"
  return 0
}

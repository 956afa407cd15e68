# shellcheck shell=bash
# Helpers of the end-to-end tests that run other tools beside block-bench.
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

# require_tool NAME PACKAGE: as require_fio, for another tool a test runs
# beside block-bench (strace, python3, ...).
require_tool() {
  command -v "$1" >/dev/null && return 0
  if [[ -n "${BLK_TEST_NO_SKIP:-}" ]]; then
    echo "FAIL: $1 is not installed (scripts/setup.sh installs it; apt-get install $2)" >&2
    exit 1
  fi
  echo "SKIPPED: $1 is not installed (scripts/setup.sh installs it; apt-get install $2)"
  exit 0
}

# under_strace TRACE CALLS CMD...: runs CMD under strace -f, the system
# calls CALLS (strace's trace= set) written to TRACE; CMD's exit status.
# LeakSanitizer cannot run under ptrace: a sanitized block-bench runs here
# without leak checks (the suite's other runs check leaks).
under_strace() {
  local trace=$1 calls=$2
  shift 2
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -o "$trace" -e trace="$calls" "$@"
}

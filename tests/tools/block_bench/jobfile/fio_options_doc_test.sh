#!/usr/bin/env bash
# docs/fio-options.md is what tools/block_bench/jobfile/fio_options.py writes from
# fio's HOWTO and this block-bench: the table of fio's options stays true.
set -euo pipefail
R="$TEST_SRCDIR/$TEST_WORKSPACE"
HOWTO=/usr/share/doc/fio/HOWTO.rst.gz
if [[ ! -f "$HOWTO" ]]; then
  [[ -n "${BLK_TEST_NO_SKIP:-}" ]] && { echo "FAIL: $HOWTO missing (apt install fio)"; exit 1; }
  echo "SKIPPED: $HOWTO missing (apt install fio)"; exit 0
fi
python3 "$R/tools/block_bench/jobfile/fio_options.py" "$HOWTO" "$R/tools/block_bench/block_bench" \
  > "$TEST_TMPDIR/fio-options.md"
if ! diff -u "$R/docs/fio-options.md" "$TEST_TMPDIR/fio-options.md"; then
  echo "FAIL: docs/fio-options.md is out of date; regenerate it with the command at its top"
  exit 1
fi
grep -q ' 0 unknown\.' "$TEST_TMPDIR/fio-options.md" ||
  { echo "FAIL: some fio option is neither supported nor refused with a reason"; exit 1; }
echo PASS

#!/usr/bin/env bash
# Every alias fio 3.33 has for a job option of its HOWTO is a name
# block-bench knows (supported or refused with a reason, never "unknown"),
# and names the same option: fio's own `--cmdhelp=NAME` says each option's
# alias, block-bench's `--cmdhelp=ALIAS` must answer for it.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
HOWTO=/usr/share/doc/fio/HOWTO.rst.gz
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
[[ -f "$HOWTO" ]] || fail "$HOWTO is missing (Debian's fio package installs it)"
names="$(zcat "$HOWTO" | sed -n 's/^\.\. option:: \([a-z_0-9]*\).*/\1/p' | sort -u)"
(( $(wc -l <<< "$names") >= 250 )) || fail "only $(wc -l <<< "$names") options read from $HOWTO"
checked=0 bad=()
for n in $names; do
  alias="$(fio --cmdhelp="$n" 2>/dev/null | awk '$1 == "alias:" { print $2; exit }')"
  [[ -z "$alias" || "$alias" == "$n" ]] && continue
  out="$("$BB" --cmdhelp="$alias" 2>&1 | head -1)" || true
  checked=$((checked + 1))
  if [[ "$out" == *"unknown to block-bench"* ]]; then
    bad+=("$alias (fio: alias of $n): $out")
  fi
done
(( checked >= 15 )) || fail "only $checked aliases found in fio's --cmdhelp"
if (( ${#bad[@]} )); then
  printf '%s\n' "${bad[@]}" >&2
  fail "${#bad[@]} of fio's $checked aliases unknown to block-bench"
fi
echo "PASS: $checked aliases of fio 3.33 known to block-bench"

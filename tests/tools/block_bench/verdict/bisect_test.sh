#!/bin/bash
# A real `git bisect run` with tools/bisect/bisect-step.sh over a throw-away
# repository of 8 commits.  Its "build" writes a block-bench wrapper whose
# null driver has a completion latency of 100 us; commit 5 raises it to
# 200 us (a step ab resolves even at the 29 % run-to-run spread of an ASan
# build beside other work, where 130 us gave "unknown"), commit 3 does not
# build: the walk-through of docs/regressions.md,
# with ab's defaults but a 10 % noise band (no --metric: ab decides on the
# metric whose run-to-run spread allows it, the p50 where the p99 is the
# host's wake-up jitter; the default 5 % band let two equal builds' p50
# interval of [-5.7 %, +5.9 %] under ASan beside a build read "unknown",
# and an unknown is a skip, so bisect could not decide; a 100 % step needs
# no finer band).  bisect must name commit 5, having skipped commit 3 if it
# tried it.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
STEP="$TEST_SRCDIR/$TEST_WORKSPACE/tools/bisect/bisect-step.sh"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bisect.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

R="$T/repo"
mkdir -p "$R" && cd "$R" || fail "cd"
git init -q . && git config user.email t@example.com && git config user.name test
write_build() {  # latency in ns, or "broken"
  if [ "$1" = broken ]; then
    printf 'echo "syntax error in the driver" >&2\nexit 1\n' >build.sh
  else
    cat >build.sh <<EOB
mkdir -p out
printf '#!/bin/sh\nexec "%s" --blockdev=driver=null,size=64m,latency-ns=%s "\$@"\n' "$BB" "$1" >out/bb
chmod +x out/bb
EOB
  fi
}
commits=()
for i in 1 2 3 4 5 6 7 8; do
  lat=100000
  [ "$i" -ge 5 ] && lat=200000
  if [ "$i" -eq 3 ]; then write_build broken; else write_build "$lat"; fi
  echo "$i" >version
  git add -A && git commit -qm "commit $i" || fail "commit $i"
  commits+=("$(git rev-parse HEAD)")
done
echo "out/" >.git/info/exclude

# The baseline: commit 1's build, kept aside.
git checkout -q "${commits[0]}" && sh build.sh && cp out/bb "$T/base" || fail "baseline build"
git checkout -q "${commits[7]}"

git bisect start "${commits[7]}" "${commits[0]}" >/dev/null || fail "bisect start"
git bisect run "$STEP" --build="sh build.sh" --binary=out/bb --ab="$BB" -- \
  --a-bin="$T/base" --seed=1 --threshold=10 \
  --name=j --rw=randread --bs=4k --size=4m --iodepth=1 >"$T/bisect.txt" 2>&1
rc=$?
cat "$T/bisect.txt" | grep -E "bisect-step|first bad commit|verdict:" | head -40
[ $rc -eq 0 ] || fail "git bisect run exited $rc: $(tail -20 "$T/bisect.txt")"
grep -q "^${commits[4]} is the first bad commit" "$T/bisect.txt" ||
  fail "bisect did not name commit 5 (${commits[4]}): $(grep 'first bad' "$T/bisect.txt")"
git bisect reset -q
echo "PASS: git bisect run named commit 5"

#!/bin/bash
# A real `git bisect run` with tools/bisect/bisect-step.sh over a throw-away
# repository of 8 commits.  Its "build" writes a block-bench wrapper whose
# null driver has a completion latency of 100 us; commit 5 raises it to
# 200 us, commit 3 does not build.  Decided on the median latency (the p99
# of a timer-driven null device on a VM is the host's wake-up jitter).  The
# step is 100 us against a 10 % threshold: the loop's wake-up adds to both
# sides alike, and under a loaded ASan run it made a base median of about
# 275 us (ab_test), where a 30 us step is only 11 %.
# bisect must name commit 5, having skipped commit 3 if it tried it.
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
  --a-bin="$T/base" --metric=p50 --threshold=10% --rounds=6 --max-rounds=20 --seed=1 \
  --name=j --rw=randread --bs=4k --size=4m --iodepth=1 >"$T/bisect.txt" 2>&1
rc=$?
cat "$T/bisect.txt" | grep -E "bisect-step|first bad commit|verdict:" | head -40
[ $rc -eq 0 ] || fail "git bisect run exited $rc: $(tail -20 "$T/bisect.txt")"
grep -q "^${commits[4]} is the first bad commit" "$T/bisect.txt" ||
  fail "bisect did not name commit 5 (${commits[4]}): $(grep 'first bad' "$T/bisect.txt")"
git bisect reset -q
echo "PASS: git bisect run named commit 5"

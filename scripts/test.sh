#!/usr/bin/env bash
# The whole blkstack test suite (README command 2):
#   1. bazel build //... but the tests, and  (default: -c opt, what users
#      bazel test the "timing" tests         run: the libraries, block-bench,
#                                            the benchmark programs; the
#                                            tests that assert on speed)
#   2. bazel test --config=tsan <threaded>   (TSan: the tests that start
#                                            threads: the loop, IOThreads, the
#                                            file driver's pool, the C API and
#                                            embedding adapters, block-bench's
#                                            runner and binary; not the rbd
#                                            tests: Ceph's libraries are not
#                                            instrumented)
#   3. bazel test --config=asan //...        (the whole suite under ASan+UBSan,
#                                            clang-16; the end-to-end tests of
#                                            the binary included; not the
#                                            "timing" tests, and the fuzz
#                                            targets in 4.)
#   4. bazel test --config=fuzz //tests/fuzz/... (each libFuzzer target for
#                                            FUZZ_SECONDS, here 20; the objects
#                                            of 3. with libFuzzer's main
#                                            linked in; any crash, leak, hang
#                                            or sanitizer report fails)
# Counts test target results of every run and ends with the line
#   N passed, N failed
# Exits non-zero if any test failed, any bazel run failed, or no test ran.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

bash scripts/setup.sh || { echo "test.sh: scripts/setup.sh failed" >&2; echo "0 passed, 1 failed"; exit 1; }

# ---- Ceph cluster hook ------------------------------------------------------
# If scripts/ceph/cluster.sh exists it is started before the tests and stopped
# afterwards (also on failure/interrupt):  cluster.sh start | cluster.sh stop
CEPH_CLUSTER="scripts/ceph/cluster.sh"
CEPH_TEST_ENV=()
if [[ -f "$CEPH_CLUSTER" ]]; then
  # An explicit directory: other runs on the machine have their own clusters.
  CEPH_DIR="$(mktemp -d "${TMPDIR:-/tmp}/blkstack-ceph.XXXXXX")"
  trap 'bash "$ROOT/$CEPH_CLUSTER" stop "$CEPH_DIR" || true' EXIT
  if ! bash "$CEPH_CLUSTER" start "$CEPH_DIR"; then
    echo "test.sh: $CEPH_CLUSTER start failed" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
  # The rbd tests find the cluster through CEPH_CONF and must not skip here.
  export CEPH_CONF="$CEPH_DIR/ceph.conf"
  export BLK_RBD_REQUIRE_CLUSTER=1
  CEPH_TEST_ENV=(--test_env=CEPH_CONF --test_env=BLK_RBD_REQUIRE_CLUSTER)
fi
# -----------------------------------------------------------------------------

LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/blkstack-test.XXXXXX")"
# Here nothing may be skipped: a test that lacks what it needs (root for
# mounts and loop devices, the cluster) fails instead of saying SKIPPED.
export BLK_TEST_NO_SKIP=1
# --local_cpu_resources: bazel counts a running test as one busy CPU, but
# the longest tests (the fault tests, ab, bisect, the matrix) mostly wait on
# daemons, timers and devices; counting 1.5 CPUs per core lets the compiler
# use the cores they leave idle.
# --force_pic: without it bazel compiles every library twice, as PIC for
# the tests (linked dynamically) and as non-PIC for the binaries: 244
# compile actions for //... instead of 123.  (User builds keep bazel's
# default, so benchmark binaries stay non-PIC.)
COMMON=(--noshow_progress --curses=no --color=no --keep_going --test_output=errors --test_summary=short
        --local_cpu_resources=HOST_CPUS*1.5 --force_pic
        --test_env=BLK_TEST_NO_SKIP "${CEPH_TEST_ENV[@]}")

total_passed=0
total_failed=0
bazel_failed=0
summary=()

# Prints "P F" for a bazel test log: counts lines of the test summary such as
#   //tests/util:foo_test        PASSED in 0.2s
#   //tests/util:foo_test        (cached) PASSED in 0.2s
#   //tests/util:bar_test        FAILED TO BUILD
# PASSED counts as passed; anything else (FAILED, TIMEOUT, FLAKY, NO STATUS,
# FAILED TO BUILD, INCOMPLETE, ...) as failed.  Test logs printed by
# --test_output are skipped.
count_results() {
  awk '
    # plain regexps only: the default awk on Debian is mawk
    index($0, "==================== Test output for ") == 1 { in_log = 1; next }
    in_log && /^=+$/ && length($0) >= 40 { in_log = 0; next }
    in_log { next }
    /^\/\/[^ \t]*:[^ \t]+[ \t]+(\(cached\)[ \t]+)?[A-Z][A-Z_ ]*[A-Z]/ {
      line = $0
      sub(/^\/\/[^ \t]+[ \t]+/, "", line)
      sub(/^\(cached\)[ \t]+/, "", line)
      if (line ~ /^PASSED( |$)/) p++; else f++
    }
    END { printf "%d %d\n", p + 0, f + 0 }
  ' "$1"
}

# Test cases a passing target skipped inside (GTEST_SKIP: a missing device,
# a kernel that behaves otherwise): not failures, but never hidden either.
# Lists them from this run's test.xml files and prints their count.
skipped_cases() {
  local since="$1"
  find -L bazel-testlogs/ -name test.xml -newer "$since" 2>/dev/null | python3 -c '
import sys, xml.etree.ElementTree as ET
n = 0
for path in sys.stdin.read().split():
    target = "//" + path[len("bazel-testlogs/"):-len("/test.xml")].rsplit("/", 1)[0] + ":" + path[:-len("/test.xml")].rsplit("/", 1)[1]
    try:
        root = ET.parse(path).getroot()
    except Exception:
        continue
    for case in root.iter("testcase"):
        sk = case.find("skipped")
        if case.get("result") == "skipped" or sk is not None:
            n += 1
            why = (sk.get("message", "") if sk is not None else "").replace("\n", " ")
            print("  SKIPPED inside %s: %s.%s: %s" % (target, case.get("classname"), case.get("name"), why[:160]), file=sys.stderr)
print(n)
'
}

run() {
  local name="$1"; shift
  local log="$LOGDIR/$name.log"
  local since="$LOGDIR/$name.start"
  touch "$since"
  echo
  echo "=== test.sh [$name]: bazel test $*"
  # The profile says where the time went: bazel analyze-profile FILE.
  bazel test "${COMMON[@]}" --profile="$LOGDIR/$name.profile.gz" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local p f
  read -r p f < <(count_results "$log")
  total_passed=$((total_passed + p))
  total_failed=$((total_failed + f))
  local note=""
  case "$rc" in
    0) ;;
    3) note=" (tests failed)" ;;
    4) note=" (no test targets)" ;;  # e.g. a test directory still empty
    *) note=" (bazel exit $rc: build or command failed)"; bazel_failed=1 ;;
  esac
  if [[ "$rc" == 3 && "$f" == 0 ]]; then
    bazel_failed=1  # bazel says tests failed but none was counted
  fi
  local skipped
  skipped=$(skipped_cases "$since" 2>"$LOGDIR/$name.skipped")
  cat "$LOGDIR/$name.skipped"
  [[ "${skipped:-0}" != 0 ]] && note="$note; ${skipped} test case(s) skipped inside passing targets (listed above)"
  summary+=("[$name] $p passed, $f failed$note")
}

# The optimised build: everything users build (the libraries, block-bench,
# the emulator, the benchmark programs of tools/bench), and the tests tagged
# "timing", which assert on how fast a device completes relative to the
# code (instrumentation changes that): they run here only.  Every other test
# runs once, in the asan run below, the end-to-end tests of the binary
# included; running them here too doubled the compile work of the whole
# tree (a third of .ci/run's time on 2 cores) and found nothing the
# sanitized run does not.  The fuzz targets run under ASan+UBSan in the
# fuzz run.
build_all() {
  echo
  echo "=== test.sh [default build]: bazel build -- //... -//tests/..."
  if bazel build "${COMMON[@]}" -- //... -//tests/... 2>&1 | tee "$LOGDIR/default-build.log"; then
    summary+=("[default build] bazel build //... but the tests: ok")
  else
    summary+=("[default build] bazel build //... but the tests: FAILED (log above)")
    bazel_failed=1
  fi
}
build_all
run default --build_tests_only --test_tag_filters=timing -- //...
# The install command of docs/embedding.md, as a user runs it (the outputs
# are those of the default build: nothing is rebuilt).  The consumers built
# against an installed prefix are //tests/install:consumers_test.
install_check() {
  local prefix
  prefix="$(mktemp -d "${TMPDIR:-/tmp}/blkstack-install.XXXXXX")"
  echo
  echo "=== test.sh [install]: scripts/install.sh $prefix"
  if bash scripts/install.sh "$prefix" > "$LOGDIR/install.log" 2>&1 &&
     [[ "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion blkstack)" != "" ]] &&
     [[ -f "$prefix/lib/cmake/blkstack/blkstackConfig.cmake" && -f "$prefix/lib/libblkstack.a" ]]; then
    summary+=("[install] scripts/install.sh: ok")
  else
    cat "$LOGDIR/install.log"
    summary+=("[install] scripts/install.sh: FAILED (log above)")
    bazel_failed=1
  fi
  rm -rf "$prefix"
}
install_check
# TSan: the tests that start threads (the loop's cross-thread paths,
# IOThreads, the embedding adapters, the file driver's pool, the C API,
# block-bench's clones, verify_async's threads, lockfile's locks, the
# emulator's queues, the storage daemon's IOThreads).  Not the tests that
# are all rbd (Ceph's libraries are not instrumented, see
# tests/tools/storage_daemon/daemon_lib.sh): the ASan stage runs them.
run tsan --config=tsan --test_tag_filters=-timing -- //tests/util:aio_context_test \
  //tests/util:join_test \
  //tests/util:task_test //tests/util:cpu_affinity_test //tests/util/embed/... \
  //tests/block:threading_test \
  //tests/block/file/... //tests/block/capi/... \
  //tests/tools/block_bench/run:runner_test //tests/tools/block_bench/run:reliability_test \
  //tests/tools/block_bench/run:steady_test //tests/tools/block_bench/run:replay_test \
  //tests/tools/block_bench/run:verify_offload_test //tests/tools/block_bench/run:file_locks_test \
  //tests/tools/block_bench/run/features:file_lock_hook_test \
  //tests/tools/emulator/... //tests/tools/storage_daemon/... \
  -//tests/tools/storage_daemon:rbd_allocation_e2e_test
# The two fault-injection tests (they start Ceph clusters of their own, kill
# their daemons, mount file systems and detach loop devices; two minutes,
# mostly waiting) run here, like every test but the timing ones.
run asan --config=asan --test_tag_filters=-timing -- //... -//tests/fuzz/... -//tools/bench/...
# Each fuzz target for 20 s here (FUZZ_SECONDS overrides; docs/reliability.md
# says how to fuzz longer).  --config=fuzz is --config=asan with libFuzzer's
# main: it compiles nothing the asan run did not, it only links the fuzz
# binaries.
export FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
run fuzz --config=fuzz //tests/fuzz/...

echo
echo "=== test.sh summary (logs in $LOGDIR)"
for s in "${summary[@]}"; do echo "  $s"; done
status=0
if ((bazel_failed)); then
  echo "test.sh: at least one bazel run failed (see above)"
  status=1
fi
if ((total_failed)); then status=1; fi
if ((total_passed + total_failed == 0)); then
  echo "test.sh: no test was run"
  status=1
fi
echo "$total_passed passed, $total_failed failed"
exit "$status"

#!/usr/bin/env bash
# Submission latency (slat) per engine as fio 3.33 has it, on the same jobs
# (fio is required: without it the test skips, or fails under
# BLK_TEST_NO_SKIP): with slat_percentiles=1 and lat_percentiles=1, for
# each engine, slat_ns has N = total_ios and percentiles exactly where
# fio's has them (libaio with and without O_DIRECT, io_uring, posixaio),
# N = 0 and none where fio's has none (psync, sync, pvsync, pvsync2); the
# _slat log has a line per I/O there, and slat + clat = lat.  (Not the null
# engine: fio's has slat at iodepth > 1, block-bench's null driver hands
# nothing over.)
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
head -c 4M /dev/urandom > data.img
n=0
for e in psync sync pvsync pvsync2 "libaio --direct=0" "libaio --direct=1" "io_uring --direct=0" posixaio; do
  n=$((n + 1))
  args=(--name=j --filename=data.img --ioengine=$e --rw=randrw --bs=4k --size=4M --io_size=2M --iodepth=4
        --slat_percentiles=1 --lat_percentiles=1 --output-format=json)
  fio "${args[@]}" --output=fio$n.json >/dev/null 2>&1 || fail "fio $e"
  "$BB" "${args[@]}" --output=bb$n.json --write_lat_log=bb$n 2>bb$n.err || fail "block-bench $e: $(cat bb$n.err)"
  python3 - "$e" fio$n.json bb$n.json bb$n <<'PY' || fail "$e: slat"
import json, os, sys
e, fj, bj, logp = sys.argv[1:]
f = json.load(open(fj))["jobs"][0]
b = json.load(open(bj))["jobs"][0]
for d in ("read", "write"):
    fs, bs = f[d]["slat_ns"], b[d]["slat_ns"]
    n = b[d]["total_ios"]
    want = fs["N"] > 0
    assert (bs["N"] > 0) == want, (e, d, "fio slat N", fs["N"], "block-bench", bs["N"])
    assert ("percentile" in bs) == ("percentile" in fs), (e, d, sorted(bs), sorted(fs))
    if want:
        assert bs["N"] == n, (e, d, bs["N"], n)
        tot = lambda h: h["mean"] * h["N"]
        c, l = b[d]["clat_ns"], b[d]["lat_ns"]
        assert abs(tot(bs) + tot(c) - tot(l)) <= 1e-6 * tot(l) + 1, (e, d, tot(bs), tot(c), tot(l))
dirs = [int(l.split(", ")[2]) for l in open(logp + "_slat.1.log")] if os.path.exists(logp + "_slat.1.log") else []
total = sum(b[d]["total_ios"] for d in ("read", "write")) if f["read"]["slat_ns"]["N"] else 0
assert len(dirs) == total, (e, len(dirs), total)
print("%-18s slat N read %d write %d (fio %d %d)" % (e, b["read"]["slat_ns"]["N"], b["write"]["slat_ns"]["N"],
      f["read"]["slat_ns"]["N"], f["write"]["slat_ns"]["N"]))
PY
done
echo PASS

#!/bin/bash
# fio's null engine vs block-bench on the null driver, 4k random reads,
# QD 1/32/128, alternating, REPS runs of SECS seconds each; prints medians of
# IOPS, CPU% and IOPS per CPU-second (docs/block-bench.md).  fio is tuned for
# peak (submissions and completions batched up to the depth) and block-bench
# gets the same command line; FIO_DEFAULTS=1 drops the batching options from
# both (fio defaults, labelled so).
# Usage: tools/block_bench/compare_null.sh [BLOCK_BENCH_BINARY] [SECS] [REPS]
BB=${1:-bazel-bin/tools/block_bench/block_bench}
SECS=${2:-3}
REPS=${3:-3}
JOB="--name=n --rw=randread --bs=4k --size=8G --norandommap --randrepeat=0 --runtime=$SECS --time_based --output-format=json"
pick='import json,sys;j=json.load(sys.stdin)["jobs"][0];print(j["read"]["iops"],j["usr_cpu"]+j["sys_cpu"])'
out=$(for rep in $(seq "$REPS"); do
  for qd in 1 32 128; do
    tuned="--iodepth_batch_submit=$qd --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=$qd"
    [ "${FIO_DEFAULTS:-0}" = 1 ] && tuned=""
    echo "fio $qd $(fio $JOB $tuned --ioengine=null --iodepth=$qd 2>/dev/null | python3 -c "$pick")"
    echo "bb $qd $("$BB" $JOB $tuned --ioengine=null --iodepth=$qd | python3 -c "$pick")"
  done
done)
python3 - "$out" <<'PY'
import statistics as st, collections, sys
d = collections.defaultdict(list)
for line in sys.argv[1].splitlines():
    t, qd, iops, cpu = line.split()
    d[(t, int(qd))].append((float(iops), float(cpu)))
import os
print("fio " + ("defaults" if os.environ.get("FIO_DEFAULTS") == "1" else "tuned (batched submit/complete)"))
print("%4s %12s %7s %12s | %12s %7s %12s" % ("QD", "fio IOPS", "CPU%", "IOPS/CPU-s", "bb IOPS", "CPU%", "IOPS/CPU-s"))
for qd in (1, 32, 128):
    row = []
    for t in ("fio", "bb"):
        v = d[(t, qd)]
        row += [st.median(x[0] for x in v), st.median(x[1] for x in v),
                st.median(x[0] / (x[1] / 100) for x in v)]
    print("%4d %12.0f %7.1f %12.0f | %12.0f %7.1f %12.0f" % (qd, *row))
PY

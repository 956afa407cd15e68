#!/bin/bash
# zram_compare.sh: block-bench against fio tuned for peak, on a device that
# holds data (issue 28's speed matrix), and the same untuned command line
# given to both tools (fio's defaults against block-bench --fio_defaults).
#
# 1. Speed (SPEED=1): 4k randread, --direct=1 --norandommap --randrepeat=0,
#    the first SIZE_MB (1024) MiB of DEV, queue depths QDS, each variant below once per
#    round, the order reversed every other round, ROUNDS rounds of SECS s;
#    medians per variant, then the best variant of each side and their
#    ratio.  fio is tuned for peak:
#      fio libaio         --iodepth_batch_submit=QD --iodepth_batch_complete_min=1
#                         --iodepth_batch_complete_max=QD --userspace_reap=1
#                         (fio reaps from the ring in user space only when
#                         complete_min=0, so with min=1 userspace_reap is inert:)
#      fio libaio spin    the same with --iodepth_batch_complete_min=0: fio's
#                         user-space reaper, spinning on the ring
#      fio io_uring       --registerfiles=1 --fixedbufs=1, batches as above
#                         (no --hipri: zram has no poll queues, fio's hipri=1
#                         fails every I/O with EOPNOTSUPP there; no
#                         --sqthread_poll: it takes one of the two cores)
#    block-bench runs its own defaults (bb libaio, bb io_uring) and fio's
#    tuned command lines verbatim (bb libaio fio-tuned, bb libaio fio-tuned
#    spin, bb io_uring fio-tuned).  Both sides keep latency measurement (no --gtod_reduce).
#    CPU per I/O: usr+sys from each tool's JSON (usr_cpu/sys_cpu, % of the
#    job's runtime) over its I/Os, and, as a cross-check, getrusage of the
#    whole process tree (RUSAGE_CHILDREN around the run: fio's main process
#    included; start-up included, so short runs overstate it a little).
#    block-bench's JSON counters give system calls per I/O.
# 2. Same command line, fio's defaults (DEFAULTS=1): libaio randread 4k at
#    QD 1 and 32 on the first SIZE_MB MiB and 128k sequential writes at QD 1 and 32
#    on the next SIZE_MB MiB (--offset: the reads' region keeps its data), no
#    tuning options; block-bench gets the same line plus --fio_defaults.
#    IOPS, clat mean and slat mean, medians of ROUNDS alternating runs, and
#    whether each is within 5 % (IOPS) / 15 % (means) of fio's.
#
# The device must hold data: on zram, if mm_stat's orig_data_size is under
# 90 % of disksize the script fills it from /dev/urandom first (FILL=0
# refuses instead).  A regular file (DEV=/path, for a quick check) is
# written from /dev/urandom if it is shorter than 2 x SIZE_MB MiB.
#
# Usage: tools/bench/zram_compare.sh   (env: DEV=/dev/zram0 SIZE_MB=1024 SECS=3 ROUNDS=5
#        QDS="1 32 128" SPEED=1 DEFAULTS=1 BB=path/to/block_bench FIO=fio
#        VARIANTS="bb libaio,bb io_uring,bb libaio fio-tuned,bb libaio fio-tuned spin,
#                  bb io_uring fio-tuned,fio libaio,fio libaio spin,fio io_uring"
#                  (comma-separated subset)
#        DEFAULT_CELLS="randread:4k:1 randread:4k:32 write:128k:1 write:128k:32"
#        RAW=file: every run's numbers as JSON lines)
# Prints markdown tables on stdout, progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEV=${DEV:-/dev/zram0}
SIZE_MB=${SIZE_MB:-1024}
SECS=${SECS:-3}
ROUNDS=${ROUNDS:-5}
QDS=${QDS:-"1 32 128"}
SPEED=${SPEED:-1}
DEFAULTS=${DEFAULTS:-1}
FILL=${FILL:-1}
FIO=${FIO:-fio}
RAW=${RAW:-}
VARIANTS=${VARIANTS:-"bb libaio,bb io_uring,bb libaio fio-tuned,bb libaio fio-tuned spin,bb io_uring fio-tuned,fio libaio,fio libaio spin,fio io_uring"}
DEFAULT_CELLS=${DEFAULT_CELLS:-"randread:4k:1 randread:4k:32 write:128k:1 write:128k:32"}
BB=${BB:-}
if [ -z "$BB" ]; then
  bazel build --force_pic //tools/block_bench:block_bench >&2
  BB=$(bazel info --force_pic bazel-bin 2>/dev/null)/tools/block_bench/block_bench
fi
for t in "$FIO" python3; do
  command -v "$t" >/dev/null || { echo "zram_compare: $t not found" >&2; exit 1; }
done
[ -x "$BB" ] || { echo "zram_compare: no block-bench at $BB" >&2; exit 1; }

NEED=$((2 * SIZE_MB << 20))
if [ -b "$DEV" ]; then
  name=$(basename "$(readlink -f "$DEV")")
  size=$(blockdev --getsize64 "$DEV")
  [ "$size" -ge $NEED ] || { echo "zram_compare: $DEV is $size bytes, needs $NEED" >&2; exit 1; }
  if [ -r "/sys/block/$name/mm_stat" ]; then
    orig=$(awk '{print $1}' "/sys/block/$name/mm_stat")
    if [ "$orig" -lt $((size / 10 * 9)) ]; then
      [ "$FILL" = 1 ] || { echo "zram_compare: $DEV holds $orig of $size bytes (FILL=0)" >&2; exit 1; }
      echo "# $DEV holds $orig of $size bytes: filling it from /dev/urandom" >&2
      dd if=/dev/urandom of="$DEV" bs=1M count=$((size >> 20)) oflag=direct status=none
    fi
    echo "# $DEV mm_stat: $(cat "/sys/block/$name/mm_stat")" >&2
  fi
else
  have=$(stat -c %s "$DEV" 2>/dev/null || echo 0)
  if [ "$have" -lt $NEED ]; then
    echo "# $DEV: writing $((2 * SIZE_MB)) MiB from /dev/urandom" >&2
    dd if=/dev/urandom of="$DEV" bs=1M count=$((2 * SIZE_MB)) conv=fsync status=none
  fi
fi

python3 - "$BB" "$FIO" "$DEV" "$SECS" "$ROUNDS" "$QDS" "$SPEED" "$DEFAULTS" "$VARIANTS" "$DEFAULT_CELLS" "$RAW" "$SIZE_MB" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
bb, fio, dev, secs, rounds, qds, speed, defaults, variants, cells, raw, size_mb = sys.argv[1:13]
secs, rounds = float(secs), int(rounds)
qds = [int(q) for q in qds.split()]
variants = [v.strip() for v in variants.split(",") if v.strip()]
cells = [c.split(":") for c in cells.split()]
rawf = open(raw, "a") if raw else None

def load():
    return open("/proc/loadavg").read().split()[:3]

def run(prog, args, rw):
    """One run: the job's numbers from the tool's JSON plus getrusage."""
    cmd = [prog] + args + ["--output-format=json"]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"zram_compare: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    out = p.stdout
    doc = json.loads(out[out.index("{"):])  # fio may print notes before the JSON
    j = doc["jobs"][0]
    d = j["read" if "read" in rw else "write"]
    ios, rt = d["total_ios"], j["job_runtime"] / 1000.0
    res = dict(iops=ios / rt,
               cpu_json=(j["usr_cpu"] + j["sys_cpu"]) / 100 * rt * 1e9 / ios,
               cpu_rusage=((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) * 1e9 / ios,
               clat=d["clat_ns"]["mean"] / 1000, slat=d["slat_ns"]["mean"] / 1000,
               lat=d["lat_ns"]["mean"] / 1000, clat_p99=d["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1000)
    bs = doc.get("blkstack") or j.get("blkstack") or {}
    c = bs.get("counters") if isinstance(bs, dict) else None
    if isinstance(c, dict):
        calls = sum(v for k, v in c.items() if k.endswith(("submit_calls", "enter_calls")) and isinstance(v, (int, float)))
        if calls: res["submits_per_io"] = calls / ios
    if rawf:
        rawf.write(json.dumps(dict(cmd=cmd, load=load(), **res)) + "\n"); rawf.flush()
    return res

med = lambda rs, k: statistics.median(r[k] for r in rs)
common = lambda rw, bs, qd: [f"--filename={dev}", "--direct=1", f"--rw={rw}", f"--bs={bs}",
                             f"--iodepth={qd}", f"--runtime={secs:g}", "--time_based",
                             "--norandommap", "--randrepeat=0"]

def tuned(engine, qd, spin=False):
    b = [f"--iodepth_batch_submit={qd}", f"--iodepth_batch_complete_min={0 if spin else 1}",
         f"--iodepth_batch_complete_max={qd}"]
    if engine == "libaio": return ["--ioengine=libaio"] + b + ["--userspace_reap=1"]
    return ["--ioengine=io_uring", "--registerfiles=1", "--fixedbufs=1"] + b

VAR = {  # name: (program, options after the common ones)
    "bb libaio": (bb, lambda qd: ["--ioengine=libaio"]),
    "bb io_uring": (bb, lambda qd: ["--ioengine=io_uring"]),
    "bb libaio fio-tuned": (bb, lambda qd: tuned("libaio", qd)),
    "bb libaio fio-tuned spin": (bb, lambda qd: tuned("libaio", qd, spin=True)),
    "bb io_uring fio-tuned": (bb, lambda qd: tuned("io_uring", qd)),
    "fio libaio": (fio, lambda qd: tuned("libaio", qd)),
    "fio libaio spin": (fio, lambda qd: tuned("libaio", qd, spin=True)),
    "fio io_uring": (fio, lambda qd: tuned("io_uring", qd)),
}
for v in variants:
    if v not in VAR: sys.exit(f"zram_compare: unknown variant {v!r} (known: {', '.join(VAR)})")

start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
print(f"Measured {start}; load average at start {' '.join(load())}; {os.cpu_count()} CPUs; "
      f"kernel {os.uname().release}; {subprocess.run([fio, '--version'], capture_output=True, text=True).stdout.strip()}; "
      f"block-bench {bb}")
print()

if speed == "1":
    res = {}
    for qd in qds:
        for rnd in range(rounds):
            for v in (variants if rnd % 2 == 0 else variants[::-1]):
                prog, extra = VAR[v]
                r = run(prog, ["--name=z"] + common("randread", "4k", qd) + [f"--size={size_mb}m"] + extra(qd), "randread")
                res.setdefault((qd, v), []).append(r)
                print(f"# randread qd={qd} round={rnd} {v}: {r['iops']:.0f} IOPS, "
                      f"{r['cpu_json']:.0f} ns CPU/IO, load {load()[0]}", file=sys.stderr, flush=True)
    print(f"### 4k randread against tuned fio: medians of {rounds} alternating runs of {secs:g} s")
    print()
    print("IOPS (median) · CPU per I/O, usr+sys ns from the tool's JSON (getrusage of the process tree):")
    print()
    print("| variant | " + " | ".join(f"QD {q}" for q in qds) + " |")
    print("|---|" + "---:|" * len(qds))
    for v in variants:
        cols = []
        for qd in qds:
            rs = res[(qd, v)]
            s = f"{med(rs, 'iops') / 1e3:.0f}k · {med(rs, 'cpu_json'):.0f} ({med(rs, 'cpu_rusage'):.0f})"
            if all("submits_per_io" in r for r in rs):
                s += f" · {med(rs, 'submits_per_io'):.3f} submits/IO"
            cols.append(s)
        print(f"| {v} | " + " | ".join(cols) + " |")
    print()
    print("Best variant each side (highest median IOPS), ratio, CPU per I/O of each best, "
          "and the per-round ratio of the two bests (min–max):")
    print()
    print("| QD | block-bench best | fio best (tuned) | ratio | CPU ns/IO bb / fio | per-round ratios |")
    print("|---:|---|---|---:|---|---|")
    for qd in qds:
        side = lambda pre: max((v for v in variants if v.startswith(pre)),
                               key=lambda v: med(res[(qd, v)], "iops"), default=None)
        b, f = side("bb "), side("fio ")
        if not b or not f: continue
        rb, rf = res[(qd, b)], res[(qd, f)]
        pr = sorted(x["iops"] / y["iops"] for x, y in zip(rb, rf))
        print(f"| {qd} | {b} {med(rb, 'iops') / 1e3:.0f}k | {f} {med(rf, 'iops') / 1e3:.0f}k | "
              f"{med(rb, 'iops') / med(rf, 'iops'):.2f}x | {med(rb, 'cpu_json'):.0f} / {med(rf, 'cpu_json'):.0f} | "
              f"{pr[0]:.2f}–{pr[-1]:.2f} |")
    print()
    print(f"Load average after the speed runs: {' '.join(load())}")
    print()

if defaults == "1":
    res = {}
    for rw, bs, qd in cells:
        qd = int(qd)
        where = [f"--size={size_mb}m"] + ([] if "read" in rw else [f"--offset={size_mb}m"])
        args = ["--name=z", "--ioengine=libaio"] + common(rw, bs, qd) + where
        for rnd in range(rounds):
            pair = [("fio", fio, args), ("block-bench --fio_defaults", bb, args + ["--fio_defaults"])]
            for name, prog, a in (pair if rnd % 2 == 0 else pair[::-1]):
                r = run(prog, a, rw)
                res.setdefault((rw, bs, qd, name), []).append(r)
                print(f"# defaults {rw} {bs} qd={qd} round={rnd} {name}: {r['iops']:.0f} IOPS "
                      f"clat {r['clat']:.1f} slat {r['slat']:.1f} us", file=sys.stderr, flush=True)
    print(f"### Same command line, fio defaults (block-bench with --fio_defaults): medians of {rounds} alternating runs of {secs:g} s")
    print()
    print("libaio, `--direct=1 --norandommap --randrepeat=0 --time_based`, nothing else tuned "
      "(reads on the first region, writes on the next: `--offset`); "
          "means in µs; ✓ = IOPS within 5 %, clat/slat mean within 15 % of fio's.")
    print()
    print("| job | QD | IOPS fio / bb | clat fio / bb | slat fio / bb | IOPS | clat | slat | CPU ns/IO fio / bb | submits/IO bb |")
    print("|---|---:|---|---|---|---|---|---|---|---:|")
    for rw, bs, qd in cells:
        qd = int(qd)
        rf, rb = res[(rw, bs, qd, "fio")], res[(rw, bs, qd, "block-bench --fio_defaults")]
        def chk(k, tol):
            a, b = med(rf, k), med(rb, k)
            d = (b - a) / a if a else float("inf")
            return f"{d * 100:+.1f} % {'✓' if abs(d) <= tol else '✗'}"
        spi = f"{med(rb, 'submits_per_io'):.3f}" if all("submits_per_io" in r for r in rb) else "—"
        print(f"| {rw} {bs} | {qd} | {med(rf, 'iops') / 1e3:.1f}k / {med(rb, 'iops') / 1e3:.1f}k | "
              f"{med(rf, 'clat'):.2f} / {med(rb, 'clat'):.2f} | {med(rf, 'slat'):.2f} / {med(rb, 'slat'):.2f} | "
              f"{chk('iops', 0.05)} | {chk('clat', 0.15)} | {chk('slat', 0.15)} | "
              f"{med(rf, 'cpu_json'):.0f} / {med(rb, 'cpu_json'):.0f} | {spi} |")
    print()
    print(f"Load average at the end: {' '.join(load())}")
PY

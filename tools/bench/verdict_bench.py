#!/usr/bin/env python3
"""How often `block-bench compare` (the statistics `ab` uses) gets it right.

Runs a pool of real block-bench runs per device (the same job again and
again), then plays trials the way `block-bench ab` decides: 10 rounds, then
5 more at a time while the verdict is unknown, up to 30.  Each trial draws
its A and B runs at random from the pool, without repeats inside the trial;
for an A/B trial the deciding metric of every B run is scaled by 1+effect
(a known regression on top of real run-to-run noise).  Reports, per device,
metric and effect, how often the verdict was worse / same / unknown, and
what a fixed-threshold script gets on the same trials (median of the first
3 runs per side, "worse" when the change is above the threshold).

  tools/bench/verdict_bench.py BLOCK_BENCH [--trials=20] [--pool=80]
                               [--devices=null,loop] [--metrics=p99,p50]

The loop device needs root (losetup).  docs/regressions.md quotes the output.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

JOB = ["--name=j", "--rw=randread", "--bs=4k"]
DEVICES = {
    # a timer-driven null device: 100 us per request, one at a time
    "null": JOB + ["--size=4m", "--iodepth=1",
                   "--blockdev=driver=null,size=64m,latency-ns=100000"],
    # a loop device over a file on the disk, O_DIRECT, libaio, QD 4
    "loop": JOB + ["--ioengine=libaio", "--direct=1", "--iodepth=4", "--size=64m",
                   "--runtime=300ms", "--time_based"],
}
KEYS = {"p99": ("clat_ns", "99.000000"), "p50": ("clat_ns", "50.000000")}


def run_pool(bb, device, n, pool_dir, loopdev):
    args = list(DEVICES[device])
    if device == "loop":
        args.append("--filename=" + loopdev)
    secs = []
    for i in range(n):
        out = os.path.join(pool_dir, "%03d.json" % i)
        t = time.monotonic()
        subprocess.run([bb, "--output-format=json", "--output=" + out, "--eta=never"] + args,
                       check=True)
        secs.append(time.monotonic() - t)
    return sorted(secs)[len(secs) // 2]


def scaled_copy(src, dst, metric, factor):
    with open(src) as f:
        doc = json.load(f)
    if factor != 1.0:
        sect, key = KEYS[metric]
        p = doc["jobs"][0]["read"][sect]["percentile"]
        p[key] = p[key] * factor
    with open(dst, "w") as f:
        json.dump(doc, f)


def value(path, metric):
    with open(path) as f:
        doc = json.load(f)
    sect, key = KEYS[metric]
    return doc["jobs"][0]["read"][sect]["percentile"][key]


def compare(bb, a_dir, b_dir, metric, threshold):
    r = subprocess.run([bb, "compare", "--output-format=json", "--metric=" + metric,
                        "--threshold=%g%%" % threshold, a_dir, b_dir],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1, 125):
        sys.exit("compare exited %d: %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout)["comparison"]["verdict"]


def trial(bb, pool, metric, effect, threshold, rng, work):
    files = rng.sample(pool, 60)
    a_files, b_files = files[:30], files[30:]
    shutil.rmtree(work, ignore_errors=True)
    a_dir, b_dir = os.path.join(work, "a"), os.path.join(work, "b")
    os.makedirs(a_dir)
    os.makedirs(b_dir)
    # The fixed-threshold script: medians of the first 3 runs per side.
    med = lambda v: sorted(v)[len(v) // 2]
    a3 = med([value(f, metric) for f in a_files[:3]])
    b3 = med([value(f, metric) * (1 + effect) for f in b_files[:3]])
    fixed = "worse" if b3 / a3 - 1 > threshold / 100 else "not worse"
    done, target = 0, 10
    while True:
        while done < target:
            shutil.copy(a_files[done], os.path.join(a_dir, "%03d.json" % done))
            scaled_copy(b_files[done], os.path.join(b_dir, "%03d.json" % done), metric,
                        1 + effect)
            done += 1
        v = compare(bb, a_dir, b_dir, metric, threshold)
        if v != "unknown" or done >= 30:
            return v, done, fixed
        target = min(30, done + 5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("block_bench")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--pool", type=int, default=80)
    ap.add_argument("--devices", default="null,loop")
    ap.add_argument("--metrics", default="p99,p50")
    ap.add_argument("--threshold", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    bb = os.path.abspath(o.block_bench)
    rng = random.Random(o.seed)
    tmp = tempfile.mkdtemp(prefix="verdict-bench.")
    loopdev = None
    try:
        print("| device | metric | run-to-run spread (IQR / median) | effect | trials | worse "
              "| same | unknown | rounds (mean) | time per verdict "
              "| fixed threshold, medians of 3: worse |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for device in o.devices.split(","):
            if device == "loop":
                backing = os.path.join("/var/tmp", "verdict-bench.img")
                subprocess.run(["truncate", "-s", "256M", backing], check=True)
                subprocess.run(["dd", "if=/dev/zero", "of=" + backing, "bs=1M", "count=256",
                                "conv=notrunc", "status=none"], check=True)
                loopdev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on",
                                          backing], check=True, capture_output=True,
                                         text=True).stdout.strip()
            pool_dir = os.path.join(tmp, device)
            os.makedirs(pool_dir)
            run_s = run_pool(bb, device, o.pool, pool_dir, loopdev)
            pool = sorted(os.path.join(pool_dir, f) for f in os.listdir(pool_dir))
            for metric in o.metrics.split(","):
                vals = sorted(value(f, metric) for f in pool)
                q = lambda x: vals[int(x * (len(vals) - 1))]
                spread = (q(0.75) - q(0.25)) / q(0.5)
                for effect in (0.0, 0.05, 0.10):
                    counts = {"worse": 0, "same": 0, "unknown": 0, "better": 0}
                    fixed_worse, rounds = 0, 0
                    for t in range(o.trials):
                        v, n, fixed = trial(bb, pool, metric, effect, o.threshold, rng,
                                            os.path.join(tmp, "trial"))
                        counts[v] += 1
                        rounds += n
                        fixed_worse += fixed == "worse"
                    k = o.trials
                    pct = lambda x: "%d %%" % round(100 * x / k)
                    mean_rounds = rounds / k
                    print("| %s | %s | %.0f %% | %+d %% | %d | %s | %s | %s | %.1f | %.0f s | %s |" % (
                        device, metric, 100 * spread, round(100 * effect), k, pct(counts["worse"]),
                        pct(counts["same"] + counts["better"]), pct(counts["unknown"]),
                        mean_rounds, (mean_rounds + 1) * 2 * run_s, pct(fixed_worse)))
                    sys.stdout.flush()
            if loopdev:
                subprocess.run(["losetup", "-d", loopdev])
                loopdev = None
    finally:
        if loopdev:
            subprocess.run(["losetup", "-d", loopdev])
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            os.unlink("/var/tmp/verdict-bench.img")
        except OSError:
            pass


if __name__ == "__main__":
    main()

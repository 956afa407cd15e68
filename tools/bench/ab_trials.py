#!/usr/bin/env python3
"""Does `block-bench ab`, with its defaults, see a 30 % slower device?

Runs whole `block-bench ab` commands (the real tool, every run a real
process, the deciding metric left to ab) on the null driver at QD1:
`--trials` A/B trials of latency-ns=LAT_A against LAT_B, then `--trials`
A/A trials of LAT_A against itself, each ab with its default rounds (10,
then 5 more while unknown, up to --max-rounds 30).  Prints every trial's
verdict, rounds and deciding metric, then the counts.  Issue #28's bar:
A/B worse in >= 19 of 20, A/A never worse in 20.

  tools/bench/ab_trials.py BLOCK_BENCH [--trials=20] [--lat-a=20000]
                           [--lat-b=26000] [--size=16m] [--seed=1]

Exit status: 0 when the bar holds for the trials run (A/B worse in at
least 95 % of them, A/A never worse), 1 when not.  docs/regressions.md
quotes the output.
"""
import argparse
import json
import subprocess
import sys
import time


def trial(bb, lat_a, lat_b, size, seed):
    cmd = [bb, "ab", f"--a=driver=null,latency-ns={lat_a}", f"--b=driver=null,latency-ns={lat_b}",
           f"--seed={seed}", "--output-format=json", "--",
           "--name=j", "--rw=randread", "--bs=4k", f"--size={size}", "--iodepth=1"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    try:
        j = json.loads(p.stdout)
    except ValueError:
        sys.exit(f"ab printed no JSON (exit {p.returncode}): {p.stderr[-500:]}")
    c = j["comparison"]
    return {"verdict": c["verdict"], "exit": p.returncode, "rounds": j["ab"]["rounds"],
            "metric": ",".join(c["options"]["metrics"]), "seconds": secs,
            "change": next((r["change"] for r in c["rows"] if r["deciding"]), None)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("block_bench")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--lat-a", type=int, default=20000)
    ap.add_argument("--lat-b", type=int, default=26000)
    ap.add_argument("--size", default="16m")
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    counts = {}
    for kind, lat_b in (("A/B", o.lat_b), ("A/A", o.lat_a)):
        tally = {"worse": 0, "same": 0, "better": 0, "unknown": 0}
        rounds = secs = 0
        for i in range(o.trials):
            t = trial(o.block_bench, o.lat_a, lat_b, o.size, o.seed + i)
            tally[t["verdict"]] += 1
            rounds += t["rounds"]
            secs += t["seconds"]
            ch = "n/a" if t["change"] is None else f"{100 * t['change']:+.1f} %"
            print(f"{kind} {o.lat_a} vs {lat_b} trial {i + 1:2d}: {t['verdict']:7s} "
                  f"(exit {t['exit']}) after {t['rounds']} rounds, {t['seconds']:.1f} s, "
                  f"deciding {t['metric']}, change {ch}", flush=True)
        counts[kind] = tally
        print(f"{kind}: {tally} in {o.trials} trials; rounds mean {rounds / o.trials:.1f}, "
              f"{secs / o.trials:.1f} s per trial", flush=True)
    ok = counts["A/B"]["worse"] >= 0.95 * o.trials and counts["A/A"]["worse"] == 0
    print("bar (A/B worse >= 95 %, A/A never worse):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Trace replay fidelity: block-bench --read_iolog against fio --read_iolog.

Same trace, same target (the null engine / driver), in one run, alternating
the tools, several repetitions; medians reported.

Traces:
  fio50k   65,536 random 4 KiB reads written by fio itself
           (fio --write_iolog with rate_iops=50000 on the null engine)
  bursty   1 ms bursts of 64 I/Os (64 k IOPS on average), 65,536 I/Os

Modes: uncapped (block-bench's default depth cap; fio iodepth=64) and
QD-capped (iodepth=1 on both).  fio honours an iolog's timestamps only at
iodepth=1: at iodepth=64 it replays as fast as it can (its duration error
is then about -97 %), so the uncapped row shows that.

Before each repetition the host's own floor is measured (host_floor: a 1 s
busy clock loop replaying a 50 k IOPS schedule perfectly): the share of time
the loop lost in gaps over 20 us, and its p99 lateness.  On a VM with steal
time no replayer can be more punctual than that.

Measured:
  * block-bench issue error: its own write_iolog recording of the replay
    compared line by line with the input trace (recorded us - trace us):
    p50 / p99 / max;
  * duration error of both tools: block-bench's replay span against the
    trace's span (ns, from its JSON); fio's job_runtime (ms) against the
    trace's span.

  tools/bench/replay_bench.py BLOCK_BENCH [--runs=5] [--keep=DIR]

docs/replay.md quotes the output.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def read_iolog(path):
    """(t_us, op, offset, len) of every I/O line of an iolog v3."""
    out = []
    with open(path) as f:
        f.readline()
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[2] in ("read", "write", "trim"):
                out.append((int(p[0]), p[2], int(p[3]), int(p[4])))
    return out


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q / 100.0 * len(v)))]


def host_floor(seconds=1.0, gap_ns=20000):
    """What a perfect replayer would get on this host now: a busy clock loop
    'issues' a 50 k IOPS schedule (each due time at the first clock read at
    or after it).  Returns (share of time in gaps over 20 us, p99 lateness
    in us)."""
    import time
    now = time.perf_counter_ns
    t0 = last = now()
    end = t0 + int(seconds * 1e9)
    stalled = 0
    due = t0
    late = []
    while last < end:
        t = now()
        if t - last > 20000:
            stalled += t - last
        last = t
        while due <= t:
            late.append((t - due) / 1000.0)
            due += gap_ns
    return 100.0 * stalled / (last - t0), pct(late, 99)


def make_traces(d):
    fio_log = os.path.join(d, "fio50k.log")
    subprocess.run(["fio", "--name=t", "--ioengine=null", "--rw=randread", "--bs=4k",
                    "--size=256m", "--rate_iops=50000", "--number_ios=65536",
                    "--write_iolog=" + fio_log, "--output=/dev/null"], check=True)
    bursty = os.path.join(d, "bursty.log")
    with open(bursty, "w") as f:
        f.write("fio version 3 iolog\n0 t.0.0 add\n0 t.0.0 open\n")
        for i in range(65536):
            f.write("%d t.0.0 read %d 4096\n" % ((i // 64) * 1000, (i * 7919 % 65536) * 4096))
    return {"fio50k": fio_log, "bursty": bursty}


def run_bb(bb, trace, depth, d):
    rec = os.path.join(d, "rec.log")
    args = [bb, "--name=r", "--ioengine=null", "--read_iolog=" + trace, "--write_iolog=" + rec,
            "--output-format=json"]
    if depth:
        args.append("--iodepth=%d" % depth)
    j = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    s = j["jobs"][0]["schedule"]
    want, got = read_iolog(trace), read_iolog(rec)
    assert len(want) == len(got), (len(want), len(got))
    t0 = want[0][0]
    err = []
    for w, g in zip(want, got):
        assert w[1:] == g[1:], (w, g)
        err.append(g[0] - (w[0] - t0))
    return {"issue_p50_us": pct(err, 50), "issue_p99_us": pct(err, 99), "issue_max_us": max(err),
            "dur_err_pct": s["duration_error_pct"],
            "report_p99_us": s["lateness_ns"]["percentile"]["99.000000"] / 1000.0,
            "held_back": s["held_back"]}


def run_fio(trace, depth):
    span_us = read_iolog(trace)[-1][0] - read_iolog(trace)[0][0]
    args = ["fio", "--name=r", "--ioengine=null", "--read_iolog=" + trace,
            "--iodepth=%d" % (depth or 64), "--output-format=json"]
    j = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    runtime_ms = j["jobs"][0]["job_runtime"]
    return {"dur_err_pct": 100.0 * (runtime_ms * 1000 - span_us) / span_us}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bb")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep")
    a = ap.parse_args()
    d = a.keep or tempfile.mkdtemp(prefix="replay_bench.")
    os.makedirs(d, exist_ok=True)
    traces = make_traces(d)
    print("%-8s %-9s | %-46s | %s" % ("trace", "mode", "block-bench: issue err us p50/p99/max, "
                                      "dur err", "fio dur err   ratio | host stall, floor p99"))
    for name, path in traces.items():
        for mode, depth in (("uncapped", 0), ("QD1", 1)):
            bbr, fior, stall = [], [], []
            for _ in range(a.runs):
                stall.append(host_floor())
                bbr.append(run_bb(a.bb, path, depth, d))
                fior.append(run_fio(path, depth))
            med = lambda rs, k: statistics.median(r[k] for r in rs)
            bb_dur = med(bbr, "dur_err_pct")
            fio_dur = med(fior, "dur_err_pct")
            ratio = abs(fio_dur) / abs(bb_dur) if bb_dur else float("inf")
            print("%-8s %-9s | %6.0f %6.0f %7.0f  %+8.4f %% (held %6d) | %+8.4f %%  %6.1fx | %4.1f %%, %6.0f us" %
                  (name, mode, med(bbr, "issue_p50_us"), med(bbr, "issue_p99_us"),
                   med(bbr, "issue_max_us"), bb_dur, med(bbr, "held_back"), fio_dur, ratio,
                   statistics.median(x[0] for x in stall), statistics.median(x[1] for x in stall)))
            sys.stdout.flush()
    if not a.keep:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""NBD servers compared: blkstack-storage-daemon, qemu-nbd and nbdkit.

The same file (default 1 GiB of random data in /dev/shm), served on a unix
socket by each server in turn, read by fio's nbd engine (fio 3.33
--ioengine=nbd): 4k randread at queue depths 32 and 1, SECS seconds per
run.  Servers alternate (the order reversed every other round); each
figure is the median of ROUNDS runs.  Reported per server and depth:
IOPS, mean completion latency (fio's clat), and the server's CPU per I/O
(its utime + stime from /proc/PID/stat over the run, divided by the I/Os
fio completed).

Servers:
  blkstack       blkstack-storage-daemon, file driver aio=io_uring,
                 cache.direct=on (as qemu-nbd below), main loop
  blkstack-sync  the same with aio=sync (buffered preadv in the loop
                 thread; nbdkit's file plugin also reads through the page
                 cache)
  qemu-nbd       qemu-nbd --aio=io_uring --cache=none -f raw
  nbdkit         nbdkit's file plugin (its defaults)

  tools/bench/nbd_compare.py DAEMON [--rounds=3] [--secs=5] [--qds=32,1]
                             [--file=/dev/shm/nbd-compare.img] [--size-mib=1024]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def wait_socket(path, proc):
    for _ in range(400):
        if os.path.exists(path):
            r = subprocess.run(["nbdinfo", "--size", "nbd+unix:///?socket=" + path],
                               capture_output=True)
            if r.returncode == 0:
                return
        if proc.poll() is not None:
            sys.exit("server exited: %s" % proc.args)
        time.sleep(0.05)
    sys.exit("server did not listen: %s" % proc.args)


def server_cmd(name, daemon, image, sock):
    if name.startswith("blkstack"):
        aio = "aio=sync" if name == "blkstack-sync" else "aio=io_uring,cache.direct=on"
        return [daemon, "--blockdev",
                "driver=file,filename=%s,%s,node-name=d" % (image, aio),
                "--nbd-server", "addr.type=unix,addr.path=" + sock,
                "--export", "type=nbd,id=e,node-name=d"]
    if name == "qemu-nbd":
        return ["qemu-nbd", "-t", "-r", "-f", "raw", "--aio=io_uring", "--cache=none",
                "-k", sock, image]
    return ["nbdkit", "-f", "-r", "-U", sock, "file", image]


def run_one(name, daemon, image, qd, secs, tmp):
    sock = os.path.join(tmp, name + ".sock")
    if os.path.exists(sock):
        os.unlink(sock)
    proc = subprocess.Popen(server_cmd(name, daemon, image, sock),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_socket(sock, proc)
        c0 = cpu_seconds(proc.pid)
        r = subprocess.run(["fio", "--name=r", "--ioengine=nbd",
                            "--uri=nbd+unix:///?socket=" + sock, "--rw=randread", "--bs=4k",
                            "--iodepth=%d" % qd, "--time_based", "--runtime=%d" % secs,
                            "--output-format=json"], capture_output=True, text=True)
        c1 = cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    out = r.stdout[r.stdout.index("{"):]
    job = json.loads(out)["jobs"][0]
    ios = job["read"]["total_ios"]
    return {"iops": job["read"]["iops"], "clat_us": job["read"]["clat_ns"]["mean"] / 1000,
            "cpu_us_per_io": (c1 - c0) * 1e6 / max(ios, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("daemon")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=int, default=5)
    ap.add_argument("--qds", default="32,1")
    ap.add_argument("--file", default="/dev/shm/nbd-compare.img")
    ap.add_argument("--size-mib", type=int, default=1024)
    a = ap.parse_args()
    for tool in ("fio", "qemu-nbd", "nbdkit", "nbdinfo"):
        if not shutil.which(tool):
            sys.exit("%s is missing" % tool)
    if not os.path.exists(a.file) or os.path.getsize(a.file) != a.size_mib << 20:
        with open("/dev/urandom", "rb") as src, open(a.file, "wb") as dst:
            for _ in range(a.size_mib):
                dst.write(src.read(1 << 20))
    servers = ["blkstack", "blkstack-sync", "qemu-nbd", "nbdkit"]
    res = {}
    with tempfile.TemporaryDirectory(prefix="nbdcmp.") as tmp:
        for qd in [int(q) for q in a.qds.split(",")]:
            for rnd in range(a.rounds):
                order = servers if rnd % 2 == 0 else servers[::-1]
                for s in order:
                    r = run_one(s, a.daemon, a.file, qd, a.secs, tmp)
                    res.setdefault((s, qd), []).append(r)
                    print("qd=%d round %d %-13s %8.0f IOPS  clat %7.1f us  cpu %5.1f us/IO" %
                          (qd, rnd + 1, s, r["iops"], r["clat_us"], r["cpu_us_per_io"]),
                          flush=True)
    print("\nmedians of %d runs of %d s, 4k randread, fio --ioengine=nbd, %s" %
          (a.rounds, a.secs, a.file))
    print("| server | QD | IOPS | clat mean (us) | server CPU per I/O (us) |")
    print("| --- | --- | --- | --- | --- |")
    for (s, qd), runs in sorted(res.items(), key=lambda kv: (-kv[0][1], servers.index(kv[0][0]))):
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print("| %s | %d | %.0f | %.1f | %.1f |" % (s, qd, med["iops"], med["clat_us"],
                                                   med["cpu_us_per_io"]))


if __name__ == "__main__":
    main()

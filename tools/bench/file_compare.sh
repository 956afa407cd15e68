#!/bin/bash
# file_compare.sh: the file driver (tools/bench/file_bench) against
#   fio --ioengine=libaio --direct=1, tuned for peak ("fio libaio tuned":
#       --iodepth_batch_submit=QD --iodepth_batch_complete_min=1
#       --iodepth_batch_complete_max=QD --userspace_reap=1; "fio libaio tuned
#       spin": the same with --iodepth_batch_complete_min=0, the only setting
#       at which fio reaps in user space: it then busy-polls the ring), and
#       with its defaults, labelled "fio libaio (fio defaults)"
#   qemu-img bench -t none -i native                (QEMU's linux-aio; sequential offsets)
# and, with TOOLS naming them, block-bench running fio's exact command lines
# ("block-bench tuned", "block-bench tuned spin", "block-bench (fio
# defaults)"), so the user-facing tool is compared with fio like for like,
# on the same devices in the same run: /dev/zram0, a loop device over a
# /dev/shm file, and a file on the root disk.  Each holds data before the
# first read (written from /dev/urandom, and again after a write row that
# reads follow: the writes' same-filled buffers would leave zram pages that
# read for nothing).  Runs alternate tool by tool;
# each number is the median of ROUNDS runs.  4k reads and writes (RWS:
# randread randwrite read write) at queue depths QDS, SECS seconds per run (qemu-img bench takes a request
# count: SECS times the fio IOPS of the same round).  CPU per I/O is
# getrusage of the tool's process (children), user and system.
#
# Needs root (zram disksize, losetup).  Leaves zram0's size and the loop
# device as it found them (zram0's first GiB is overwritten).
#
# qemu-img bench has no random mode: it always steps sequentially, so only
# its read/write rows compare like with like (the ratio table uses those).
#
# Usage: tools/bench/file_compare.sh            (env: SECS=3 ROUNDS=3
#        QDS="1 32 128" RWS="randread randwrite read write" TARGETS="zram loop disk"
#        BENCH=path/to/file_bench BB=path/to/block_bench DISKDIR=/var/tmp
#        TOOLS="file_bench peek=on,file_bench peek=off,fio libaio tuned,
#               fio libaio tuned spin,fio libaio (fio defaults),qemu-img bench native"
#               (comma-separated; also "block-bench tuned", "block-bench tuned spin",
#               "block-bench (fio defaults)"))
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${SECS:-3}
ROUNDS=${ROUNDS:-3}
QDS=${QDS:-"1 32 128"}
RWS=${RWS:-"randread randwrite read write"}
TARGETS=${TARGETS:-"zram loop disk"}
DISKDIR=${DISKDIR:-/var/tmp}
BENCH=${BENCH:-}
BB=${BB:-}
TOOLS=${TOOLS:-"file_bench peek=on,file_bench peek=off,fio libaio tuned,fio libaio tuned spin,fio libaio (fio defaults),qemu-img bench native"}
if [ -z "$BENCH" ]; then
  bazel build //tools/bench/file_bench:file_bench >&2
  BENCH=$(bazel info bazel-bin 2>/dev/null)/tools/bench/file_bench/file_bench
fi
if [ -z "$BB" ] && [[ "$TOOLS" == *block-bench* ]]; then
  bazel build //tools/block_bench:block_bench >&2
  BB=$(bazel info bazel-bin 2>/dev/null)/tools/block_bench/block_bench
fi
for t in fio qemu-img losetup python3; do
  command -v $t >/dev/null || { echo "file_compare: $t not found" >&2; exit 1; }
done

ZRAM_SET=0 LOOPDEV="" SHMFILE="" DISKFILE=""
cleanup() {
  [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" || true
  [ -n "$SHMFILE" ] && rm -f "$SHMFILE" || true
  [ -n "$DISKFILE" ] && rm -f "$DISKFILE" || true
  [ "$ZRAM_SET" = 1 ] && echo 1 > /sys/block/zram0/reset || true
}
trap cleanup EXIT

declare -A DEV
for t in $TARGETS; do
  case $t in
    zram)
      if [ ! -e /dev/zram0 ]; then modprobe zram 2>/dev/null || true; fi
      if [ ! -e /dev/zram0 ]; then echo "file_compare: no /dev/zram0 (zram not in this kernel): skipped" >&2; continue; fi
      if [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
        echo 1G > /sys/block/zram0/disksize; ZRAM_SET=1
      fi
      DEV[zram]=/dev/zram0 ;;
    loop)
      SHMFILE=$(mktemp /dev/shm/file_compare.XXXXXX)
      truncate -s 1G "$SHMFILE"
      LOOPDEV=$(losetup -f --show "$SHMFILE")
      DEV[loop]=$LOOPDEV ;;
    disk)
      DISKFILE=$(mktemp "$DISKDIR/file_compare.XXXXXX")
      truncate -s 1G "$DISKFILE"
      DEV[disk]=$DISKFILE ;;
  esac
done

python3 - "$BENCH" "$SECS" "$ROUNDS" "$QDS" "$RWS" "$(for k in "${!DEV[@]}"; do echo -n "$k=${DEV[$k]} "; done)" "$TOOLS" "$BB" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
bench, secs, rounds, qds, rws, devs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), \
    [int(q) for q in sys.argv[4].split()], sys.argv[5].split(), dict(x.split('=', 1) for x in sys.argv[6].split())
tools = [t.strip() for t in sys.argv[7].split(",") if t.strip()]
bb = sys.argv[8]

def run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime

def file_bench(dev, rw, qd, peek):
    spec = f"driver=file,filename={dev},aio=native,cache.direct=on,peek-after-submit={peek}"
    out, wall, u, s = run([bench, f"--spec={spec}", f"--seconds={secs}", f"--qd={qd}", f"--rw={rw}", "--json"])
    r = json.loads(out)["runs"][0]
    return dict(iops=r["iops"], usr=r["usr_ns_per_io"], sys=r["sys_ns_per_io"], counters=r["counters"])

def fill(dev):  # random data on the GiB the runs use (zram stores it whole)
    subprocess.run(["dd", "if=/dev/urandom", f"of={dev}", "bs=1M", "count=1024", "oflag=direct",
                    "status=none"], check=True)

def fio(dev, rw, qd, tool, prog="fio"):
    cmd = [prog, "--name=f", f"--filename={dev}", "--ioengine=libaio", "--direct=1", f"--rw={rw}",
           "--bs=4k", f"--iodepth={qd}", "--size=1G", f"--runtime={secs:g}", "--time_based",
           "--output-format=json", "--norandommap", "--randrepeat=0"]
    if "tuned" in tool:  # fio tuned for peak: batched submit and reap
        cmd += [f"--iodepth_batch_submit={qd}", f"--iodepth_batch_complete_max={qd}",
                "--userspace_reap=1",
                f"--iodepth_batch_complete_min={0 if 'spin' in tool else 1}"]
    # file_bench writes memset-filled buffers and qemu-img bench a 0 pattern:
    # same-filled pages, which zram stores without compressing.  fio's
    # default random buffers cost zram a compression per write (~10x slower
    # randwrite); zero buffers make the write data comparable.
    if rw in ("randwrite", "write"): cmd.append("--zero_buffers")
    out, wall, u, s = run(cmd)
    j = json.loads(out)["jobs"][0]
    d = j["read" if rw in ("randread", "read") else "write"]
    ios = d["total_ios"]
    rt = j["job_runtime"] / 1000.0
    return dict(iops=ios / rt, usr=j["usr_cpu"] / 100 * rt * 1e9 / ios, sys=j["sys_cpu"] / 100 * rt * 1e9 / ios)

def qemu_img(dev, rw, qd, count):
    cmd = ["qemu-img", "bench", "-f", "raw", "-t", "none", "-i", "native", "-d", str(qd),
           "-c", str(count), "-s", "4096", "-S", "4096"]
    if rw in ("randwrite", "write"): cmd.append("-w")
    cmd.append(dev)
    out, wall, u, s = run(cmd)
    secs_ = float(out.split("Run completed in")[1].split()[0])
    return dict(iops=count / secs_, usr=u * 1e9 / count, sys=s * 1e9 / count)

results = {}
for name, dev in sorted(devs.items()):
    fill(dev)
    for i, rw in enumerate(rws):
        if i > 0 and "write" in rws[i - 1] and "read" in rw:
            fill(dev)
        for qd in qds:
            for rnd in range(rounds):
                fio_iops = None
                for tool in (tools if rnd % 2 == 0 else list(reversed(tools))):
                    if tool.startswith("file_bench"):
                        r = file_bench(dev, rw, qd, "on" if "on" in tool else "off")
                    elif tool.startswith("fio"):
                        r = fio(dev, rw, qd, tool)
                        fio_iops = r["iops"]
                    elif tool.startswith("block-bench"):
                        # fio's exact command line; block-bench prints fio's JSON.
                        r = fio(dev, rw, qd, tool, prog=bb)
                    else:
                        count = int(max(1000, (fio_iops or 20000) * secs))
                        count = min(count, (1 << 30) // 4096 * 4)  # qemu-img wraps at image end
                        r = qemu_img(dev, rw, qd, count)
                    results.setdefault((name, rw, qd, tool), []).append(r)
                    print(f"# {name} {rw} qd={qd} round={rnd} {tool}: {r['iops']:.0f} IOPS", file=sys.stderr, flush=True)

print(f"| target | rw | qd | tool | IOPS (median of {rounds}) | usr ns/IO | sys ns/IO |")
print("|---|---|---|---|---:|---:|---:|")
for (name, rw, qd, tool), rs in results.items():
    med = lambda k: statistics.median(x[k] for x in rs)
    print(f"| {name} | {rw} | {qd} | {tool} | {med('iops'):.0f} | {med('usr'):.0f} | {med('sys'):.0f} |")
print()
print("Ratios of medians, file_bench peek=on against fio tuned for peak (the better of tuned and tuned")
print("spin), against fio's defaults (labelled so) and qemu-img (IOPS; CPU = usr ns per I/O, lower is better).")
print("qemu-img bench only on sequential rows (it has no random mode).")
print("| target | rw | qd | vs best tuned fio | vs fio libaio (fio defaults) | vs qemu-img (seq) | usr ns: ours / best tuned fio |")
print("|---|---|---|---:|---:|---:|---|")
keys = sorted({(n, rw, qd) for (n, rw, qd, _) in results})
def m(tool, k):
    rs = results.get((name, rw, qd, tool))
    return statistics.median(x[k] for x in rs) if rs else float("nan")
def best(prefix):  # the tuned variant with the higher median IOPS
    c = [t for t in tools if t.startswith(prefix) and "tuned" in t and results.get((name, rw, qd, t))]
    return max(c, key=lambda t: m(t, "iops")) if c else None
for (name, rw, qd) in keys:
    ours = m("file_bench peek=on", "iops")
    q = f"{ours / m('qemu-img bench native', 'iops'):.2f}x" if rw in ("read", "write") else "-"
    bf = best("fio")
    print(f"| {name} | {rw} | {qd} | {ours / m(bf, 'iops') if bf else float('nan'):.2f}x ({bf}) | "
          f"{ours / m('fio libaio (fio defaults)', 'iops'):.2f}x | {q} | "
          f"{m('file_bench peek=on', 'usr'):.0f} / {m(bf, 'usr') if bf else float('nan'):.0f} |")
if any(t.startswith("block-bench") for t in tools):
    print()
    print("block-bench (fio's command line) against fio: tuned against tuned, the best tuned of each, and")
    print("fio defaults against fio defaults.")
    print("| target | rw | qd | bb tuned / fio tuned | bb tuned spin / fio tuned spin | best / best | bb / fio (fio defaults) | usr ns: best bb / best fio |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for (name, rw, qd) in keys:
        bb_, bf = best("block-bench"), best("fio")
        r = lambda a, b: m(a, "iops") / m(b, "iops") if a and b else float("nan")
        print(f"| {name} | {rw} | {qd} | {r('block-bench tuned', 'fio libaio tuned'):.2f}x | "
              f"{r('block-bench tuned spin', 'fio libaio tuned spin'):.2f}x | {r(bb_, bf):.2f}x | "
              f"{r('block-bench (fio defaults)', 'fio libaio (fio defaults)'):.2f}x | "
              f"{m(bb_, 'usr') if bb_ else float('nan'):.0f} / {m(bf, 'usr') if bf else float('nan'):.0f} |")
print()
print("file_bench counters (last round): io_submit calls and requests per submit, reaps per source and")
print("completions-per-reap buckets, resume paths, poll handler (aio-poll=auto) and the loop's polling")
for (name, rw, qd, tool), rs in results.items():
    if not tool.startswith("file_bench"): continue
    c = rs[-1]["counters"]
    keys = [k for k in sorted(c) if k.startswith(("aio_reap", "aio_requests_per_submit", "aio_poll", "loop_"))
            or k in ("aio_submit_calls", "aio_requests_submitted", "aio_empty_peeks", "aio_resumed_inline",
                     "aio_resumed_deferred", "aio_resumed_direct")]
    keys = [k for k in keys if not k.endswith("_0")]
    print(f"- {name} {rw} qd={qd} {tool}: " + ", ".join(f"{k.removeprefix('aio_')}={c[k]}" for k in keys))
PY

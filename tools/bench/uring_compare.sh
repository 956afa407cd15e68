#!/bin/bash
# uring_compare.sh: block-bench's io_uring mode (file driver aio=io_uring)
# against fio's io_uring engine tuned for peak, and both tools' libaio, on
# the same devices in the same run: /dev/zram0 and a loop device over a
# /dev/shm file, both holding data (written from /dev/urandom before the
# first read, and again after a write row that reads follow: the writes'
# zero buffers would leave same-filled pages, which zram reads for nothing).
# fio tuned for peak:
#   io_uring: --registerfiles=1 --fixedbufs=1 --iodepth_batch_submit=QD
#             --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=QD
#             (no --hipri: zram and loop have no poll queues)
#   libaio:   --iodepth_batch_submit=QD --iodepth_batch_complete_min=1
#             --iodepth_batch_complete_max=QD --userspace_reap=1
# and, labelled "fio defaults", fio with its defaults (one request per
# submit).  block-bench runs its own defaults ("bb io_uring", "bb libaio"),
# fio's tuned io_uring line verbatim ("bb io_uring fio-tuned") and SQPOLL
# against fio's SQPOLL (tuned the same way).  Tools alternate (reversed
# every other round); each number is the median of ROUNDS runs of SECS
# seconds.  4k I/O (RWS) at queue depths QDS.  CPU per I/O: the job's
# usr/sys from the JSON.  Writes use --zero_buffers (zram stores
# same-filled pages without compressing; fio's random buffers would
# measure compression).
#
# Needs root (zram disksize, losetup); leaves zram0's size and the loop
# device as it found them (zram0's data is overwritten).
#
# Usage: tools/bench/uring_compare.sh   (env: SECS=2 ROUNDS=3 QDS="1 32 128"
#        RWS="randread randwrite" TARGETS="zram loop" BB=path/to/block_bench
#        BB_BEFORE=path/to/an/older/block_bench: adds "bb libaio before", for
#        checking that a change did not slow libaio down)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${SECS:-2}
ROUNDS=${ROUNDS:-3}
QDS=${QDS:-"1 32 128"}
RWS=${RWS:-"randread randwrite"}
TARGETS=${TARGETS:-"zram loop"}
BB=${BB:-}
if [ -z "$BB" ]; then
  bazel build //tools/block_bench:block_bench >&2
  BB=$(bazel info bazel-bin 2>/dev/null)/tools/block_bench/block_bench
fi
command -v fio >/dev/null || { echo "uring_compare: fio not found" >&2; exit 1; }

ZRAM_SET=0 LOOPDEV="" SHMFILE=""
cleanup() {
  [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" || true
  [ -n "$SHMFILE" ] && rm -f "$SHMFILE" || true
  [ "$ZRAM_SET" = 1 ] && echo 1 > /sys/block/zram0/reset || true
}
trap cleanup EXIT
declare -A DEV
for t in $TARGETS; do
  case $t in
    zram)
      [ -e /dev/zram0 ] || modprobe zram 2>/dev/null || true
      [ -e /dev/zram0 ] || { echo "uring_compare: no /dev/zram0: skipped" >&2; continue; }
      if [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then echo 1G > /sys/block/zram0/disksize; ZRAM_SET=1; fi
      DEV[zram]=/dev/zram0 ;;
    loop)
      SHMFILE=$(mktemp /dev/shm/uring_compare.XXXXXX)
      truncate -s 1G "$SHMFILE"
      LOOPDEV=$(losetup -f --show "$SHMFILE")
      DEV[loop]=$LOOPDEV ;;
  esac
done

python3 - "$BB" "$SECS" "$ROUNDS" "$QDS" "$RWS" "$(for k in "${!DEV[@]}"; do echo -n "$k=${DEV[$k]} "; done)" "${BB_BEFORE:-}" <<'PY'
import json, os, statistics, subprocess, sys
bb, secs, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
bb_before = sys.argv[7]
qds = [int(q) for q in sys.argv[4].split()]
rws = sys.argv[5].split()
devs = dict(x.split('=', 1) for x in sys.argv[6].split())
def batch(qd):  # fio's batching tuned for peak
    return [f"--iodepth_batch_submit={qd}", "--iodepth_batch_complete_min=1",
            f"--iodepth_batch_complete_max={qd}"]
URING_TUNED = lambda qd: ["--ioengine=io_uring", "--registerfiles=1", "--fixedbufs=1"] + batch(qd)
TOOLS = {  # name: (program, extra fio options for a queue depth)
    "bb io_uring": (bb, lambda qd: ["--ioengine=io_uring"]),
    "fio io_uring tuned": ("fio", URING_TUNED),
    "bb io_uring fio-tuned": (bb, URING_TUNED),
    "fio io_uring (fio defaults)": ("fio", lambda qd: ["--ioengine=io_uring"]),
    "bb io_uring sqpoll": (bb, lambda qd: ["--ioengine=io_uring", "--sqthread_poll=1"]),
    "fio io_uring sqpoll tuned": ("fio", lambda qd: URING_TUNED(qd) + ["--sqthread_poll=1"]),
    "bb libaio": (bb, lambda qd: ["--ioengine=libaio"]),
    "fio libaio tuned": ("fio", lambda qd: ["--ioengine=libaio"] + batch(qd) + ["--userspace_reap=1"]),
    "fio libaio (fio defaults)": ("fio", lambda qd: ["--ioengine=libaio"]),
}
if bb_before:
    TOOLS["bb libaio before"] = (bb_before, lambda qd: ["--ioengine=libaio"])

def fill(dev):  # data on the GiB the runs use: random, so zram stores it whole
    subprocess.run(["dd", "if=/dev/urandom", f"of={dev}", "bs=1M", "count=1024", "oflag=direct",
                    "status=none"], check=True)

def holds_data(dev):  # zram: mm_stat's orig_data_size leaves out same-filled pages
    name = os.path.basename(os.path.realpath(dev))
    try:
        return int(open(f"/sys/block/{name}/mm_stat").read().split()[0]) >= 0.9 * 2**30
    except OSError:
        return False

def run(prog, extra, dev, rw, qd):
    cmd = [prog, "--name=f", f"--filename={dev}", "--direct=1", f"--rw={rw}", "--bs=4k",
           f"--iodepth={qd}", "--size=1G", f"--runtime={secs:g}", "--time_based",
           "--output-format=json", "--norandommap", "--randrepeat=0"] + extra(qd)
    if "write" in rw: cmd.append("--zero_buffers")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    j = json.loads(out)["jobs"][0]
    d = j["read" if "read" in rw else "write"]
    ios, rt = d["total_ios"], j["job_runtime"] / 1000.0
    return dict(iops=ios / rt, usr=j["usr_cpu"] / 100 * rt * 1e9 / ios,
                sys=j["sys_cpu"] / 100 * rt * 1e9 / ios)

res = {}
names = list(TOOLS)
for target, dev in sorted(devs.items()):
    if not holds_data(dev):
        fill(dev)
    for i, rw in enumerate(rws):
        if i > 0 and "write" in rws[i - 1] and "read" in rw:
            fill(dev)
        for qd in qds:
            for rnd in range(rounds):
                for name in (names if rnd % 2 == 0 else names[::-1]):
                    r = run(*TOOLS[name], dev, rw, qd)
                    res.setdefault((target, rw, qd, name), []).append(r)
                    print(f"# {target} {rw} qd={qd} round={rnd} {name}: {r['iops']:.0f} IOPS", file=sys.stderr, flush=True)

med = lambda k, t, rw, qd, n: statistics.median(x[k] for x in res[(t, rw, qd, n)])
cells = sorted({k[:3] for k in res})
def iops(cell, n): return med('iops', *cell, n)
def cpu(cell, n): return med('usr', *cell, n) + med('sys', *cell, n)  # ns per I/O
print(f"| target | rw | QD | " + " | ".join(names) + " |")
print("|---|---|---:|" + "---:|" * len(names))
for cell in cells:
    print("| %s | %s | %s | " % cell + " | ".join(f"{iops(cell, n) / 1000:.0f}k" for n in names) + " |")
print()
print("Ratios (IOPS) against fio tuned for peak, and CPU per I/O (usr+sys ns); the last")
print("ratio column is against fio's defaults, labelled so:")
print("| target | rw | QD | bb/fio io_uring tuned | bb fio-tuned line/fio io_uring tuned | bb sqpoll/fio sqpoll tuned | bb libaio/fio libaio tuned | best bb/best fio | ns/IO bb / fio (io_uring tuned) | bb io_uring/fio io_uring (fio defaults) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
for cell in cells:
    m = lambda n: iops(cell, n)
    best = lambda pre: max(m(n) for n in names if n.startswith(pre) and "defaults" not in n and "before" not in n)
    print("| %s | %s | %s | " % cell + f"{m('bb io_uring') / m('fio io_uring tuned'):.2f}x | "
          f"{m('bb io_uring fio-tuned') / m('fio io_uring tuned'):.2f}x | "
          f"{m('bb io_uring sqpoll') / m('fio io_uring sqpoll tuned'):.2f}x | "
          f"{m('bb libaio') / m('fio libaio tuned'):.2f}x | "
          f"{best('bb ') / best('fio '):.2f}x | "
          f"{cpu(cell, 'bb io_uring'):.0f} / {cpu(cell, 'fio io_uring tuned'):.0f} | "
          f"{m('bb io_uring') / m('fio io_uring (fio defaults)'):.2f}x |")
if bb_before:
    print()
    print("libaio before/after (IOPS; CPU usr+sys ns per I/O):")
    print("| target | rw | QD | bb libaio now / before | ns/IO now / before |")
    print("|---|---|---:|---:|---|")
    for cell in cells:
        print("| %s | %s | %s | " % cell +
              f"{iops(cell, 'bb libaio') / iops(cell, 'bb libaio before'):.2f}x | "
              f"{cpu(cell, 'bb libaio'):.0f} / {cpu(cell, 'bb libaio before'):.0f} |")
PY

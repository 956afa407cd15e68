#!/bin/bash
# uring_compare.sh: block-bench's io_uring mode (file driver aio=io_uring)
# against fio's io_uring engine, both tools' variants (--sqthread_poll=1,
# --fixedbufs=1) and both tools' libaio, with fio's exact command line for
# block-bench too, on the same devices in the same run: /dev/zram0 and a
# loop device over a /dev/shm file.  Tools alternate (reversed every other
# round); each number is the median of ROUNDS runs of SECS seconds.  4k I/O
# (RWS) at queue depths QDS.  CPU per I/O: the job's usr/sys from the JSON.
# Writes use --zero_buffers (zram stores same-filled pages without
# compressing; fio's random buffers would measure compression).
#
# Needs root (zram disksize, losetup); leaves zram0 and the loop device as
# it found them.
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
      dd if=/dev/zero of="$LOOPDEV" bs=1M count=1024 oflag=direct status=none
      DEV[loop]=$LOOPDEV ;;
  esac
done

python3 - "$BB" "$SECS" "$ROUNDS" "$QDS" "$RWS" "$(for k in "${!DEV[@]}"; do echo -n "$k=${DEV[$k]} "; done)" "${BB_BEFORE:-}" <<'PY'
import json, statistics, subprocess, sys
bb, secs, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
bb_before = sys.argv[7]
qds = [int(q) for q in sys.argv[4].split()]
rws = sys.argv[5].split()
devs = dict(x.split('=', 1) for x in sys.argv[6].split())
TOOLS = {  # name: (program, extra fio options)
    "bb io_uring": (bb, ["--ioengine=io_uring"]),
    "fio io_uring": ("fio", ["--ioengine=io_uring"]),
    "bb io_uring sqpoll": (bb, ["--ioengine=io_uring", "--sqthread_poll=1"]),
    "fio io_uring sqpoll": ("fio", ["--ioengine=io_uring", "--sqthread_poll=1"]),
    "bb io_uring fixedbufs": (bb, ["--ioengine=io_uring", "--fixedbufs=1"]),
    "fio io_uring fixedbufs": ("fio", ["--ioengine=io_uring", "--fixedbufs=1"]),
    "bb libaio": (bb, ["--ioengine=libaio"]),
    "fio libaio": ("fio", ["--ioengine=libaio"]),
}
if bb_before:
    TOOLS["bb libaio before"] = (bb_before, ["--ioengine=libaio"])

def run(prog, extra, dev, rw, qd):
    cmd = [prog, "--name=f", f"--filename={dev}", "--direct=1", f"--rw={rw}", "--bs=4k",
           f"--iodepth={qd}", "--size=1G", f"--runtime={secs:g}", "--time_based",
           "--output-format=json", "--norandommap", "--randrepeat=0"] + extra
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
    for rw in rws:
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
print("Ratios (IOPS) and CPU per I/O (usr+sys ns):")
print("| target | rw | QD | bb/fio io_uring | bb sqpoll/fio sqpoll | bb/fio fixedbufs | bb io_uring/bb libaio | ns/IO bb / fio (io_uring) |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for cell in cells:
    m = lambda n: iops(cell, n)
    print("| %s | %s | %s | " % cell + f"{m('bb io_uring') / m('fio io_uring'):.2f}x | "
          f"{m('bb io_uring sqpoll') / m('fio io_uring sqpoll'):.2f}x | "
          f"{m('bb io_uring fixedbufs') / m('fio io_uring fixedbufs'):.2f}x | "
          f"{m('bb io_uring') / m('bb libaio'):.2f}x | "
          f"{cpu(cell, 'bb io_uring'):.0f} / {cpu(cell, 'fio io_uring'):.0f} |")
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

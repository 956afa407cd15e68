#!/usr/bin/env bash
# A real, unmodified Linux guest on a vhost-user-blk export: QEMU (TCG, no
# KVM needed) boots Debian's kernel with a tiny initramfs built here
# (busybox-static and the virtio modules of that kernel); its disk is
# -device vhost-user-blk-pci on the daemon's socket, guest memory a shared
# memfd.  The guest's /init:
#   * reads 1 MiB the host wrote at offset 0 and prints its sha256;
#   * writes a 1 MiB pattern at 1 MiB (conv=fsync: OUT then FLUSH), drops
#     its page cache, reads it back and prints the sha256;
#   * discards [2 MiB, 3 MiB) (DISCARD; the file driver punches a hole);
#   * prints the disk's size in sectors (GET_CONFIG capacity) and serial
#     (GET_ID), then powers off.
# The test checks each line against the host's own view: the sha256s, the
# backing file's bytes at 1 MiB (the pattern) and at 2 MiB (zeros), the
# size, the serial; and the daemon's clean exit on SIGTERM.  The daemon
# runs the export on an iothread and records the guest's requests
# (write-iolog=): the log holds the pattern's writes, the flush and the
# discard, and block-bench --read_iolog replays it (the guest's boot and
# test, request for request; replay_no_stall=1: without its pauses).
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need qemu-system-x86_64 qemu-system-x86
need busybox busybox-static
KVER=""
for k in /boot/vmlinuz-*; do [[ -r $k ]] && KVER="${k#/boot/vmlinuz-}"; done
if [[ -z $KVER || ! -d /lib/modules/$KVER ]]; then
  if [[ -n ${BLK_TEST_NO_SKIP:-} ]]; then
    echo "FAIL: no readable /boot/vmlinuz-* with its /lib/modules (Debian package linux-image-amd64)"; exit 1
  fi
  echo "SKIPPED: no kernel image (apt-get install linux-image-amd64)"; exit 0
fi
BUSYBOX="$(command -v busybox)"
if ! file -L "$BUSYBOX" 2>/dev/null | grep -q static && ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "FAIL: $BUSYBOX is not statically linked (Debian package busybox-static)"; exit 1
fi
cd "$WORK" || exit 1

# ---- the initramfs: busybox, the modules in dependency order, /init ----
mkdir -p root/bin root/lib root/proc root/sys root/dev
cp "$BUSYBOX" root/bin/busybox
order=()
add_module() {  # add_module NAME: its dependencies first
  local m=$1 f d
  for d in "${order[@]}"; do [[ $d == "$m" ]] && return; done
  f="$(modinfo -k "$KVER" -n "$m" 2>/dev/null)" || { echo "FAIL: module $m not found for $KVER"; exit 1; }
  for d in $(modinfo -k "$KVER" -F depends "$m" | tr ',' ' '); do add_module "$d"; done
  case $f in
    *.ko) cp "$f" "root/lib/$m.ko" ;;
    *.ko.xz) xz -dc "$f" > "root/lib/$m.ko" ;;
    *.ko.zst) zstd -dqc "$f" > "root/lib/$m.ko" ;;
    *) echo "FAIL: unknown module format $f"; exit 1 ;;
  esac
  order+=("$m")
}
# virtio_pci and virtio_blk may be built in; then there is nothing to load.
for m in virtio_pci virtio_blk; do
  if modinfo -k "$KVER" -n "$m" 2>/dev/null | grep -q '^/'; then add_module "$m"; fi
done
head -c $((1 << 20)) /dev/urandom > root/pattern
cat > root/init <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in ${order[*]}; do insmod /lib/\$m.ko || echo "GUEST-ERROR insmod \$m"; done
for i in \$(seq 300); do [ -b /dev/vda ] && break; sleep 0.1; done
[ -b /dev/vda ] || echo "GUEST-ERROR no /dev/vda"
echo "GUEST-SIZE \$(cat /sys/block/vda/size)"
echo "GUEST-SERIAL \$(cat /sys/block/vda/serial)"
echo "GUEST-READ \$(dd if=/dev/vda bs=65536 count=16 2>/dev/null | sha256sum)"
dd if=/pattern of=/dev/vda bs=65536 seek=16 conv=fsync 2>/dev/null && echo GUEST-WROTE
echo 3 > /proc/sys/vm/drop_caches
echo "GUEST-BACK \$(dd if=/dev/vda bs=65536 skip=16 count=16 2>/dev/null | sha256sum)"
blkdiscard -o 2097152 -l 1048576 /dev/vda && echo GUEST-DISCARDED
sync
echo GUEST-DONE
poweroff -f
EOF
chmod +x root/init
# A newc cpio archive, written here (no cpio tool needed).
python3 - root initrd.cpio <<'PY'
import os, stat, sys
root, out = sys.argv[1], sys.argv[2]
def entry(f, name, mode, data, ino):
    hdr = "070701" + "".join("%08x" % v for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
    f.write(hdr.encode() + name.encode() + b"\0")
    f.write(b"\0" * ((4 - (110 + len(name) + 1) % 4) % 4))
    f.write(data)
    f.write(b"\0" * ((4 - len(data) % 4) % 4))
with open(out, "wb") as f:
    ino = 1
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for n in sorted(dirs) + sorted(files):
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            st = os.stat(p)
            if stat.S_ISDIR(st.st_mode):
                entry(f, rel, stat.S_IFDIR | 0o755, b"", ino)
            else:
                entry(f, rel, stat.S_IFREG | (st.st_mode & 0o777), open(p, "rb").read(), ino)
            ino += 1
    entry(f, "TRAILER!!!", 0, b"", 0)
PY

# ---- the disk: 16 MiB, host data at 0, non-zero bytes at 2 MiB ----
SIZE=$((16 << 20))
truncate -s $SIZE disk.img
head -c $((1 << 20)) /dev/urandom > host.bin
dd if=host.bin of=disk.img conv=notrunc status=none
head -c $((1 << 20)) /dev/zero | tr '\0' '\377' | dd of=disk.img bs=1M seek=2 conv=notrunc status=none
VSOCK="$WORK/vhost.sock"
start_daemon \
  --iothread id=io0 \
  --blockdev "driver=file,filename=$WORK/disk.img,discard=unmap,node-name=disk" \
  --export "type=vhost-user-blk,id=vdisk0,node-name=disk,addr.type=unix,addr.path=$VSOCK,writable=on,iothread=io0,write-iolog=$WORK/guest.iolog"
[[ -S $VSOCK ]] && pass "the vhost-user socket listens" || bad "no socket at $VSOCK"

t0=$(date +%s.%N)
timeout 600 qemu-system-x86_64 -accel tcg -m 256M -smp 1 \
  -object memory-backend-memfd,id=mem,size=256M,share=on -machine pc,memory-backend=mem \
  -kernel "/boot/vmlinuz-$KVER" -initrd initrd.cpio \
  -append "console=ttyS0 panic=-1 loglevel=4" \
  -chardev "socket,id=c0,path=$VSOCK" -device vhost-user-blk-pci,chardev=c0 \
  -nographic -no-reboot -monitor none -serial stdio </dev/null >console.log 2>qemu.err
qrc=$?
t1=$(date +%s.%N)
echo "guest boot + test: $(python3 -c "print(round($t1 - $t0, 1))") s (QEMU TCG, exit $qrc)"
# (The console may put escape sequences before a line: match inside it.)
line() { tr -d '\r' < console.log | grep -ao "$1 [^ ]*" | head -1 | cut -d' ' -f2; }
if grep -aq GUEST-DONE console.log; then pass "the guest ran its /init to the end"; else
  bad "the guest did not finish (QEMU exit $qrc): $(tail -c 3000 console.log) $(cat qemu.err)"; fi
grep -a GUEST-ERROR console.log && bad "guest errors (above)"
[[ "$(line GUEST-SIZE)" == $((SIZE / 512)) ]] && pass "capacity: $((SIZE / 512)) sectors" ||
  bad "capacity: guest saw '$(line GUEST-SIZE)'"
[[ "$(line GUEST-SERIAL)" == vdisk0 ]] && pass "GET_ID: serial vdisk0" || bad "serial: '$(line GUEST-SERIAL)'"
[[ "$(line GUEST-READ)" == "$(sha256sum < host.bin | cut -d' ' -f1)" ]] &&
  pass "IN: the guest read the host's 1 MiB" || bad "IN: sha256 differs"
want="$(sha256sum < root/pattern | cut -d' ' -f1)"
grep -aq GUEST-WROTE console.log && pass "OUT+FLUSH: dd conv=fsync succeeded" || bad "the guest's dd failed"
[[ "$(line GUEST-BACK)" == "$want" ]] && pass "the guest read its pattern back" ||
  bad "read back: sha256 '$(line GUEST-BACK)' != '$want'"
grep -aq GUEST-DISCARDED console.log && pass "DISCARD: blkdiscard succeeded" || bad "blkdiscard failed"
stop_daemon
cmp -s <(dd if=disk.img bs=1M skip=1 count=1 status=none) root/pattern &&
  pass "the backing file holds the guest's pattern at 1 MiB" || bad "backing file: pattern differs"
cmp -s <(dd if=disk.img bs=1M skip=2 count=1 status=none) <(head -c $((1 << 20)) /dev/zero) &&
  pass "the backing file reads zeros where the guest discarded" || bad "discarded range is not zero"
cmp -s <(head -c $((1 << 20)) disk.img) host.bin && pass "the host's data is untouched" ||
  bad "the host's 1 MiB changed"

# ---- what the guest did, as fio iolog v3, and its replay ----
if python3 - guest.iolog <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "fio version 3 iolog", lines[0]
ios = [l.split()[2:] for l in lines[1:] if l.split()[2] in ("read", "write", "trim", "sync")]
M = 1 << 20
w = sum(int(n) for op, o, n in ios if op == "write" and M <= int(o) < 2 * M)
t = sum(int(n) for op, o, n in ios if op == "trim" and 2 * M <= int(o) < 3 * M)
r = sum(int(n) for op, o, n in ios if op == "read")
s = sum(1 for i in ios if i[0] == "sync")
print("recorded: %d requests; %d bytes written at 1 MiB, %d trimmed at 2 MiB, %d read, %d syncs"
      % (len(ios), w, t, r, s))
sys.exit(0 if w == M and t == M and r >= 2 * M and s >= 1 else 1)
PY
then pass "write-iolog: the guest's writes, discard, reads and flush recorded"
else bad "iolog: $(head -c 2000 guest.iolog)"; fi
BB="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-blkstack}/tools/block_bench/block_bench"
[[ -x "$BB" ]] || BB="$(dirname "$DAEMON")/../block_bench/block_bench"
read -r nr nw nt < <(awk '$3=="read"{r++} $3=="write"{w++} $3=="trim"{t++} END{print r+0, w+0, t+0}' guest.iolog)
if "$BB" --name=replay --read_iolog="$WORK/guest.iolog" --replay_no_stall=1 --output-format=json > replay.json 2> replay.err &&
   python3 - replay.json "$nr" "$nw" "$nt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
got = (j["read"]["total_ios"], j["write"]["total_ios"], j["trim"]["total_ios"])
want = tuple(int(x) for x in sys.argv[2:5])
print("replayed (reads, writes, trims):", got, "recorded:", want)
sys.exit(0 if got == want else 1)
PY
then pass "block-bench --read_iolog replays the guest's requests"
else bad "replay: $(head -c 600 replay.err)"; fi
exit $fail

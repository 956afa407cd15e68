#!/usr/bin/env bash
# base:allocation through the daemon, with real clients, over a sparse file
# of TEST_TMPDIR (holes from truncate, a fallocate punch-hole and discard):
#   nbdinfo --map     the export's data/hole/zero extents equal those of
#                     `qemu-img map --output=json` of the file itself, and
#                     those of `nbdinfo --map` against qemu-nbd serving it
#   nbdsh             NBD_CMD_FLAG_REQ_ONE: exactly one extent, not past the
#                     request; a request inside an extent ends at the request
#   qemu-img convert  out of the export into a new file: same bytes (cmp),
#                     the copy stays sparse (du far below its size), and
#                     convert read only the data extents (write-iolog)
#   discard           a TRIM through the export turns data into a hole
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need nbdinfo libnbd-bin
need nbdsh python3-libnbd
need qemu-img qemu-utils
need qemu-nbd qemu-utils
need jq jq
cd "$WORK" || exit 1
# nbdsh is a Python script (#!/usr/bin/env python3): Debian's python3 has
# its nbd module, another python3 first on PATH may not.
nbdsh() { PATH="/usr/bin:$PATH" command nbdsh "$@"; }

MiB=$((1 << 20))
SIZE=$((64 * MiB))
truncate -s $SIZE sparse.img
# Data at 1-3 MiB, 10 MiB (64 KiB), 40-48 MiB with 42-44 MiB punched out.
dd if=/dev/urandom of=sparse.img bs=1M seek=1 count=2 conv=notrunc status=none
dd if=/dev/urandom of=sparse.img bs=64K seek=160 count=1 conv=notrunc status=none
dd if=/dev/urandom of=sparse.img bs=1M seek=40 count=8 conv=notrunc status=none
fallocate --punch-hole --keep-size -o $((42 * MiB)) -l $((2 * MiB)) sparse.img ||
  { bad "fallocate --punch-hole on $WORK"; exit 1; }
sync sparse.img

# Extents as "offset length data zero" lines, neighbours with equal flags
# merged (each tool splits differently, the allocation is what must match).
merge() {
  awk '{ if (n && $3 == d && $4 == z && $1 == o + l) { l += $2 } else { if (n) print o, l, d, z; o = $1; l = $2; d = $3; z = $4; n = 1 } }
       END { if (n) print o, l, d, z }'
}
nbd_map() {  # URI: nbdinfo's base:allocation map (type bit 0 hole, bit 1 zero)
  nbdinfo --map --json "$1" | jq -r '.[] | "\(.offset) \(.length) \(if (.type % 2) == 1 then 0 else 1 end) \(if (.type / 2 | floor) % 2 == 1 then 1 else 0 end)"' | merge
}
file_map() {  # FILE: qemu-img's own map of the file
  qemu-img map --output=json -f raw "$1" | jq -r '.[] | "\(.start) \(.length) \(if .data then 1 else 0 end) \(if .zero then 1 else 0 end)"' | merge
}

start_daemon \
  --blockdev "driver=file,filename=$WORK/sparse.img,read-only=on,node-name=ro" \
  --export "type=nbd,id=e0,node-name=ro,name=sparse,write-iolog=$WORK/reads.log" \
  --blockdev "driver=throttle,iops-total=100000,file.driver=file,file.filename=$WORK/sparse.img,file.read-only=on,read-only=on,node-name=thr" \
  --export type=nbd,id=e1,node-name=thr,name=throttled

want=$(file_map sparse.img)
echo "qemu-img map of the file:"; echo "$want"
[[ $(echo "$want" | awk '$3 == 1' | wc -l) == 4 ]] || bad "the file has not the 4 data extents the test made"

got=$(nbd_map "$(uri sparse)")
[[ $got == "$want" ]] && pass "nbdinfo --map of the export == qemu-img map of the file" ||
  bad "nbdinfo --map of the export differs: $got"
got=$(nbd_map "$(uri throttled)")
[[ $got == "$want" ]] && pass "through a throttle filter: the same map" ||
  bad "nbdinfo --map through throttle differs: $got"

# qemu-nbd serving the same file, read-only.
QSOCK="$WORK/qemu-nbd.sock"
qemu-nbd -r -f raw -x sparse -t -k "$QSOCK" sparse.img 2>"$WORK/qemu-nbd.err" &
QPID=$!
for _ in $(seq 100); do [[ -S $QSOCK ]] && break; sleep 0.05; done
qgot=$(nbd_map "nbd+unix:///sparse?socket=$QSOCK")
kill "$QPID"; wait "$QPID" 2>/dev/null
[[ -n $qgot && $qgot == "$(nbd_map "$(uri sparse)")" ]] &&
  pass "nbdinfo --map: the daemon's export == qemu-nbd's" ||
  bad "qemu-nbd's map differs: $qgot $(cat "$WORK/qemu-nbd.err")"

# REQ_ONE and a request inside an extent, straight from libnbd.
out=$(nbdsh --base-allocation -u "$(uri sparse)" -c '
import nbd
seen = []
def cb(meta, offset, entries, err):
    if meta == nbd.CONTEXT_BASE_ALLOCATION:
        seen.append(list(entries))
    return 0
h.block_status(8 << 20, 0, cb, nbd.CMD_FLAG_REQ_ONE)       # hole 0-1 MiB, then data
h.block_status(512 << 10, (1 << 20) + 4096, cb)           # inside the data at 1-3 MiB
h.block_status(64 << 20, 0, cb)                           # the whole export
print(seen[0]); print(seen[1]); print(len(seen[2]) // 2, sum(seen[2][0::2]))
' 2>&1)
mapfile -t lines <<<"$out"
[[ ${lines[0]:-} == "[1048576, 3]" ]] && pass "REQ_ONE: one extent, the 1 MiB hole (hole|zero)" ||
  bad "REQ_ONE: $out"
[[ ${lines[1]:-} == "[524288, 0]" ]] && pass "a query inside a data extent: data, the requested length" ||
  bad "inside an extent: $out"
[[ ${lines[2]:-} == "$(echo "$want" | wc -l) $SIZE" ]] && pass "the whole export: merged extents summing to its size" ||
  bad "whole export: $out (want $(echo "$want" | wc -l) extents)"

# qemu-img convert out of the export keeps the copy sparse.
qemu-img convert -f raw -O raw "$(uri sparse)" copy.img || bad "qemu-img convert out of the export"
cmp -s copy.img sparse.img && pass "qemu-img convert: the copy has the same bytes" || bad "copy differs"
used=$(du -k copy.img | cut -f1)
src_used=$(du -k sparse.img | cut -f1)
echo "du -k: copy $used KiB, source $src_used KiB, size $((SIZE >> 10)) KiB"
(( used < (SIZE >> 10) / 4 )) && pass "the copy is sparse ($used KiB used of $((SIZE >> 10)) KiB)" ||
  bad "the copy is not sparse: $used KiB used of $((SIZE >> 10)) KiB"
stop_daemon
# qemu-img also finds zeros in what it reads (-S 4k), so the copy is sparse
# either way: that it skipped the holes shows in what the export was asked
# to read (the only reader was convert): the data, 8.06 MiB, not 64 MiB.
read_kib=$(awk '$3 == "read" { b += $5 } END { print int(b / 1024) }' reads.log)
echo "qemu-img convert read $read_kib KiB from the export"
(( read_kib >= 8256 && read_kib <= 12 * 1024 )) &&
  pass "qemu-img convert read only the data extents ($read_kib KiB)" ||
  bad "qemu-img convert read $read_kib KiB (the data is 8256 KiB)"

# A discard through a writable export (discard=unmap) shows up as a hole.
cp --sparse=always sparse.img rw.img
start_daemon \
  --blockdev "driver=file,filename=$WORK/rw.img,discard=unmap,node-name=rw" \
  --export type=nbd,id=e0,node-name=rw,name=rw,writable=on
nbdsh -u "$(uri rw)" -c 'h.trim(1 << 20, 1 << 20); h.flush()' || bad "nbdsh trim"
rw_map=$(nbd_map "$(uri rw)")
echo "$rw_map" | awk '$3 == 1 && $1 < 2097152 && $1 + $2 > 1048576' | grep -q . &&
  bad "after TRIM of 1-2 MiB the export still reports data there: $rw_map" ||
  pass "TRIM of 1-2 MiB: the export reports a hole there"
echo "$rw_map" | awk '$3 == 1 && $1 <= 2097152 && $1 + $2 >= 3145728' | grep -q . &&
  pass "2-3 MiB, not trimmed, is still data" || bad "2-3 MiB lost its data: $rw_map"
stop_daemon
exit $fail

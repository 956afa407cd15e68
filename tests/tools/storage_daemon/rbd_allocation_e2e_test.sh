#!/usr/bin/env bash
# base:allocation of an rbd export (the rbd driver's block status, from
# rbd_diff_iterate2), with real clients against the test cluster of
# CEPH_CONF (scripts/ceph/cluster.sh; scripts/test.sh starts one):
#   fresh image       nbdinfo --map: one hole reading zeros, the whole size
#   after writes      (qemu-io through the export, 3 ranges, one spanning
#                     two objects) the export's data extents equal those of
#                     `rbd diff` (Ceph's own tool, another client) of the
#                     image; every written range is data, every hole zero
#   qemu-img convert  out of the export: the same bytes as `rbd export`,
#                     and the copy stays sparse (no more blocks used than
#                     the data extents)
#   discard           a whole-object TRIM through the export: a hole again
# Without a cluster the test says SKIPPED, unless BLK_RBD_REQUIRE_CLUSTER=1;
# in a ThreadSanitizer build of the daemon it says SKIPPED (daemon_lib.sh).
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need nbdinfo libnbd-bin
need qemu-io qemu-utils
need qemu-img qemu-utils
need jq jq
need rbd ceph-common
if daemon_is_tsan; then
  echo "SKIPPED: a ThreadSanitizer build of the daemon (Ceph's libraries are not instrumented; see daemon_lib.sh)"; exit 0
fi
if [[ -z ${CEPH_CONF:-} || ! -r ${CEPH_CONF:-} ]]; then
  if [[ ${BLK_RBD_REQUIRE_CLUSTER:-0} == 1 ]]; then
    echo "FAIL: BLK_RBD_REQUIRE_CLUSTER=1 but CEPH_CONF is not set or not readable"; exit 1
  fi
  echo "SKIPPED: no Ceph cluster (CEPH_CONF is not set; scripts/ceph/cluster.sh start)"; exit 0
fi
cd "$WORK" || exit 1
# librados/librbd keep allocations until exit (LeakSanitizer builds only).
printf 'leak:librados\nleak:librbd\nleak:libceph-common\n' > lsan.supp
export LSAN_OPTIONS="suppressions=$WORK/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

MiB=$((1 << 20))
SIZE=$((64 * MiB))
IMG="sd-alloc-$$"
timeout 60 rbd create --size 64M --image-feature layering "rbd/$IMG" ||
  { echo "FAIL: rbd create rbd/$IMG (CEPH_CONF=$CEPH_CONF)"; exit 1; }
trap 'cleanup; timeout 60 rbd rm "rbd/$IMG" >/dev/null 2>&1' EXIT
OBJ=$(timeout 60 rbd info --format json "rbd/$IMG" | jq -r '.object_size')
echo "rbd/$IMG: $SIZE bytes, objects of $OBJ bytes"

# Extents as "offset length data zero" lines, neighbours with equal flags
# merged (tools split differently; the allocation is what must match).
merge() {
  awk '{ if (n && $3 == d && $4 == z && $1 == o + l) { l += $2 } else { if (n) print o, l, d, z; o = $1; l = $2; d = $3; z = $4; n = 1 } }
       END { if (n) print o, l, d, z }'
}
nbd_map() {  # nbdinfo's base:allocation map (type bit 0 hole, bit 1 zero)
  nbdinfo --map --json "$(uri r)" | jq -r '.[] | "\(.offset) \(.length) \(if (.type % 2) == 1 then 0 else 1 end) \(if (.type / 2 | floor) % 2 == 1 then 1 else 0 end)"' | merge
}
data_of() { awk '$3 == 1 { print $1, $2 }'; }
rbd_data() {  # `rbd diff`: the image's allocated extents, merged
  timeout 60 rbd diff --format json "rbd/$IMG" | jq -r '.[] | select(.exists == "true" or .exists == true) | "\(.offset) \(.length) 1 0"' |
    sort -n | merge | data_of
}
# covered OFF LEN MAP: OFF..OFF+LEN lies inside one data extent of MAP.
covered() { awk -v o="$1" -v l="$2" '$3 == 1 && $1 <= o && o + l <= $1 + $2 { f = 1 } END { exit !f }' <<<"$3"; }

start_daemon \
  --blockdev "driver=rbd,pool=rbd,image=$IMG,conf=$CEPH_CONF,node-name=r" \
  --export type=nbd,id=e0,node-name=r,writable=on

m=$(nbd_map)
[[ $m == "0 $SIZE 0 1" ]] && pass "fresh image: one hole reading zeros" || bad "fresh image map: $m"

W=("$((1 * MiB)) $((64 << 10))" "$((2 * OBJ - MiB)) $((2 * MiB))" "$((SIZE - 4096)) 4096")
o="$(qemu-io -f raw -c "write -P 0x11 ${W[0]}" -c "write -P 0x22 ${W[1]}" -c "write -P 0x33 ${W[2]}" \
     -c flush "$(uri r)" 2>&1)"
[[ $(grep -c "^wrote " <<<"$o") == 3 ]] || bad "qemu-io writes: $o"
m=$(nbd_map)
echo "export map:"; echo "$m"
want=$(rbd_data)
echo "rbd diff:"; echo "$want"
[[ -n $want && "$(data_of <<<"$m")" == "$want" ]] && pass "the export's data extents == rbd diff of the image" ||
  bad "data extents differ from rbd diff"
ok=1
for w in "${W[@]}"; do covered $w "$m" || { ok=0; bad "written range $w is not data: $m"; }; done
(( ok )) && pass "every written range is reported as data"
awk '$3 == 0 && $4 != 1 { f = 1 } END { exit !f }' <<<"$m" && bad "a hole not marked zero: $m" ||
  pass "every hole is marked zero"
(( $(awk '$3 == 0' <<<"$m" | wc -l) >= 2 )) && pass "unwritten objects are holes" || bad "no holes left: $m"

# qemu-img convert out of the export: same bytes, sparse copy.
qemu-img convert -f raw -O raw "$(uri r)" copy.img || bad "qemu-img convert out of the export"
timeout 120 rbd export "rbd/$IMG" ref.img >/dev/null 2>&1 || bad "rbd export"
cmp -s copy.img ref.img && pass "qemu-img convert: the copy equals rbd export" || bad "copy differs from rbd export"
data_kib=$(awk '$3 == 1 { b += $2 } END { print int(b / 1024) }' <<<"$m")
used=$(du -k copy.img | cut -f1)
echo "du -k copy.img: $used KiB; data extents: $data_kib KiB; size $((SIZE >> 10)) KiB"
(( used <= data_kib + 1024 && used < (SIZE >> 10) / 2 )) && pass "the copy is sparse ($used KiB used)" ||
  bad "the copy is not sparse: $used KiB used, data extents $data_kib KiB"

# Discarding the last object whole removes it: a hole again.
o="$(qemu-io -f raw -c "discard $((SIZE - OBJ)) $OBJ" "$(uri r)" 2>&1)"
m=$(nbd_map)
awk -v s=$((SIZE - OBJ)) '$3 == 1 && $1 + $2 > s { f = 1 } END { exit !f }' <<<"$m" &&
  bad "after discarding the last object it is still data: $m" || pass "a whole-object discard: a hole again"
covered ${W[0]} "$m" && pass "the other data stays" || bad "data lost after the discard: $m"
stop_daemon
exit $fail

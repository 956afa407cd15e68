#!/usr/bin/env bash
# NBD_FLAG_CAN_MULTI_CONN: the daemon advertises it because every
# connection to an export shares the export's one graph on one loop, so a
# flush on any connection covers the writes completed on all of them.
# Checked with real clients:
#   nbdinfo     can_multi_conn on a writable file export, a read-only one
#               and (with a cluster) an rbd export
#   libnbd      (python3-libnbd, two handles = two connections to one
#               export) a write on connection 1 reads back on connection 2,
#               and on a third connection opened afterwards
#   rbd         the export's librbd cache is write-back (rados.
#               rbd_cache_policy=writeback: librbd 16's default,
#               writearound, sends writes on at once; and
#               rbd_cache_max_dirty_age=3600: nothing is written back on a
#               timer): a write on connection 1 is not yet in the image as
#               another client (`rbd export`) sees it; a flush on
#               connection 2 makes it so -- the flush covered the other
#               connection's write.  Without a Ceph cluster (CEPH_CONF)
#               this part says SKIPPED, unless BLK_RBD_REQUIRE_CLUSTER=1,
#               and in a ThreadSanitizer build (daemon_lib.sh).
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need nbdinfo libnbd-bin
need jq jq
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import nbd' 2>/dev/null || need nbd-python-module python3-libnbd
cd "$WORK" || exit 1
printf 'leak:librados\nleak:librbd\nleak:libceph-common\n' > lsan.supp
export LSAN_OPTIONS="suppressions=$WORK/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

RBD_IMG=""
rbd_args=()
if daemon_is_tsan; then
  echo "SKIPPED: the rbd part in a ThreadSanitizer build of the daemon (Ceph's libraries are not instrumented; see daemon_lib.sh)"
elif [[ -n ${CEPH_CONF:-} && -r ${CEPH_CONF:-} ]] && command -v rbd >/dev/null; then
  RBD_IMG="sd-mc-$$"
  timeout 60 rbd create --size 16M --image-feature layering "rbd/$RBD_IMG" ||
    { echo "FAIL: rbd create rbd/$RBD_IMG (CEPH_CONF=$CEPH_CONF)"; exit 1; }
  trap 'cleanup; timeout 60 rbd rm "rbd/$RBD_IMG" >/dev/null 2>&1' EXIT
  rbd_args=(--blockdev "driver=rbd,pool=rbd,image=$RBD_IMG,conf=$CEPH_CONF,write-cache=on,rados.rbd_cache_policy=writeback,rados.rbd_cache_max_dirty_age=3600,node-name=r"
            --export type=nbd,id=e2,node-name=r,writable=on)
elif [[ ${BLK_RBD_REQUIRE_CLUSTER:-0} == 1 ]]; then
  echo "FAIL: BLK_RBD_REQUIRE_CLUSTER=1 but CEPH_CONF is not set or not readable (or no rbd)"; exit 1
else
  echo "SKIPPED: the rbd part (no Ceph cluster: CEPH_CONF is not set; scripts/ceph/cluster.sh start)"
fi

truncate -s 16M disk.img
head -c 16M /dev/urandom > ro.img
start_daemon \
  --blockdev "driver=file,filename=$WORK/disk.img,node-name=disk" \
  --export type=nbd,id=e0,node-name=disk,writable=on \
  --blockdev "driver=file,filename=$WORK/ro.img,read-only=on,node-name=ro" \
  --export type=nbd,id=e1,node-name=ro \
  "${rbd_args[@]}"

# ---- nbdinfo ----
names=(disk ro); [[ -n $RBD_IMG ]] && names+=(r)
for n in "${names[@]}"; do
  v=$(nbdinfo --json "$(uri "$n")" | jq -r '.exports[0].can_multi_conn')
  [[ $v == true ]] && pass "nbdinfo: export $n can_multi_conn" || bad "export $n: can_multi_conn=$v"
done

# ---- two connections: write on one, read on the other ----
# two_conns URI OFFSET [IMAGE]: prints one "name value" line per step.
two_conns() {
  URI="$1" OFF="$2" IMG="${3:-}" /usr/bin/python3 - <<'PY'
import os, subprocess, nbd
uri, off, img = os.environ["URI"], int(os.environ["OFF"]), os.environ["IMG"]
n = 65536
pat = bytes((i * 7 + 3) & 0xff for i in range(n))
def image_has_it():  # another Ceph client's view of the image
    out = subprocess.run(["timeout", "60", "rbd", "export", "--no-progress", "rbd/" + img, "-"],
                         capture_output=True, check=True).stdout
    return out[off:off + n] == pat
h1, h2 = nbd.NBD(), nbd.NBD()
h1.connect_uri(uri); h2.connect_uri(uri)
print("multi_conn", h1.can_multi_conn() and h2.can_multi_conn())
h1.pwrite(pat, off)
print("read_on_2", h2.pread(n, off) == pat)
if img: print("in_image_before_flush", image_has_it())
h2.flush()
if img: print("in_image_after_flush_on_2", image_has_it())
h3 = nbd.NBD(); h3.connect_uri(uri)
print("read_on_3", h3.pread(n, off) == pat)
for h in (h1, h2, h3): h.shutdown()
PY
}
check() {  # check OUTPUT NAME WANT WHAT
  if grep -qx "$2 $3" <<<"$1"; then pass "$4"; else bad "$4: $1"; fi
}
o=$(two_conns "$(uri disk)" $((3 << 20)) 2>&1)
check "$o" multi_conn True "file export: both connections see CAN_MULTI_CONN"
check "$o" read_on_2 True "file export: a write on connection 1 reads back on connection 2"
check "$o" read_on_3 True "file export: ... and on a connection opened after the flush"
cmp -s <(dd if=disk.img bs=64k skip=48 count=1 status=none) \
  <(/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + 3) & 0xff for i in range(65536)))') &&
  pass "file export: the write is in the backing file" || bad "file export: backing file lacks the write"

if [[ -n $RBD_IMG ]]; then
  o=$(two_conns "$(uri r)" $((5 << 20)) "$RBD_IMG" 2>&1)
  check "$o" multi_conn True "rbd export: both connections see CAN_MULTI_CONN"
  check "$o" read_on_2 True "rbd export: a write on connection 1 reads back on connection 2"
  check "$o" in_image_before_flush False "rbd export: the write is still only in the write-back cache (rbd export does not see it)"
  check "$o" in_image_after_flush_on_2 True "rbd export: a flush on connection 2 put connection 1's write into the image"
  check "$o" read_on_3 True "rbd export: a third connection reads it"
fi
stop_daemon
exit $fail

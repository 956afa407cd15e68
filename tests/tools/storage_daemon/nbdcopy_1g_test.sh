#!/usr/bin/env bash
# nbdcopy of 1 GiB both ways through the daemon (the issue's size; the
# suite's clients_e2e_test copies 64 MiB because it also runs under ASan).
# A "timing" test: scripts/test.sh runs it alone, in the optimised build
# only.  The source is 1 GiB of random data with a 256 MiB hole in the
# middle, on TEST_TMPDIR:
#   file -> export   nbdcopy writes into a file-backed export; sha256 of
#                    the export's file equals the source's
#   export -> file   nbdcopy reads it back; sha256 equal, and the hole
#                    stays a hole in the copy (du at most 1 GiB - 200 MiB;
#                    nbdcopy skips zeros it reads too, so this is not the
#                    test of base:allocation: allocation_e2e_test is)
# Each direction's time and rate are printed; the only time bound is a wide
# one (120 s each) so a stall fails instead of hanging.
set -uo pipefail
source "$(dirname "$0")/daemon_lib.sh"
need nbdcopy libnbd-bin
cd "$WORK" || exit 1

MiB=$((1 << 20))
SIZE=$((1024 * MiB))
truncate -s $SIZE src.img
head -c $((512 * MiB)) /dev/urandom | dd of=src.img conv=notrunc status=none
head -c $((256 * MiB)) /dev/urandom | dd of=src.img bs=1M seek=768 conv=notrunc status=none
truncate -s $SIZE disk.img
start_daemon \
  --blockdev "driver=file,filename=$WORK/disk.img,discard=unmap,node-name=disk" \
  --export type=nbd,id=e0,node-name=disk,writable=on

now() { date +%s%N; }
report() {  # NAME T0 T1
  local ms=$((($3 - $2) / 1000000))
  echo "$1: $ms ms, $((SIZE / MiB * 1000 / (ms > 0 ? ms : 1))) MiB/s"
  (( ms < 120000 )) || bad "$1 took $ms ms (bound: 120 s)"
}
t0=$(now)
timeout 300 nbdcopy src.img "$(uri)" || bad "nbdcopy file -> export"
t1=$(now)
report "nbdcopy file -> export (1 GiB)" "$t0" "$t1"
t0=$(now)
timeout 300 nbdcopy "$(uri)" back.img || bad "nbdcopy export -> file"
t1=$(now)
report "nbdcopy export -> file (1 GiB)" "$t0" "$t1"
stop_daemon

a=$(sha256sum < src.img); b=$(sha256sum < disk.img); c=$(sha256sum < back.img)
[[ $a == "$b" ]] && pass "file -> export: sha256 of the export's file == the source's" ||
  bad "file -> export: sha256 $b != $a"
[[ $a == "$c" ]] && pass "export -> file: sha256 of the copy == the source's" ||
  bad "export -> file: sha256 $c != $a"
[[ $(stat -c %s back.img) == "$SIZE" ]] || bad "copy size $(stat -c %s back.img)"
used=$(du -k back.img | cut -f1)
echo "du -k: back.img $used KiB, disk.img $(du -k disk.img | cut -f1) KiB"
(( used <= (SIZE - 200 * MiB) >> 10 )) && pass "the 256 MiB hole stayed a hole in the copy ($used KiB used)" ||
  bad "the copy is not sparse: $used KiB used"
exit $fail

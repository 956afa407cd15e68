#!/usr/bin/env bash
# Runs the virtio-blk-like emulator on the native, libevent and Asio loops,
# over the null driver and over the error-inject filter, and checks its JSON
# report with python3: every queue made progress, no errors where none were
# injected, errors reported (and a non-zero exit) where they were; each
# queue's counts are its own workload's (not one shared tally), and differ
# where the device treats reads and writes differently.  Then the flags:
# --help, fio-style sizes, and bad values refused (exit 2) naming the flag.
set -uo pipefail
EMU="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-blkstack}/tools/emulator/emulator"
[[ -x "$EMU" ]] || EMU="$(dirname "$0")/../../../tools/emulator/emulator"
fail=0
check() {  # name, python condition over j (the report) and Q (its queues)
  if python3 -c "import json,sys; j=json.load(open('$TMP')); Q=j['queues']
sys.exit(0 if ($2) else 1)"; then
    echo "PASS: $1"
  else
    echo "FAIL: $1"; cat "$TMP"; fail=1
  fi
}
TMP="$(mktemp)"
trap 'rm -f "$TMP"' EXIT
for loop in native libevent asio; do
  "$EMU" --loop=$loop --queues=3 --depth=8 --seconds=0.5 --json >"$TMP"
  rc=$?
  [[ $rc == 0 ]] || { echo "FAIL: $loop exit $rc"; fail=1; }
  check "$loop: 3 queues reported" "len(j['queues']) == 3 and j['loop'] == '$loop'"
  check "$loop: every queue made progress" "all(q['iops'] > 1000 for q in j['queues'])"
  check "$loop: no errors" "j['errors'] == 0"
  check "$loop: latency percentiles ordered" "all(0 < q['p50_ns'] <= q['p99_ns'] for q in j['queues'])"
  # Each queue's tally is its own: the per-queue counts add up to the total,
  # and each shows only its workload's request types.
  check "$loop: queue I/Os and bytes add up to the totals" \
    "sum(q['ios'] for q in Q) == j['ios'] and sum(q['bytes'] for q in Q) == j['bytes']"
  check "$loop: reads + writes + flushes = I/Os, bs bytes each" \
    "all(q['reads'] + q['writes'] + q['flushes'] == q['ios'] and
         q['bytes'] == 4096 * (q['reads'] + q['writes']) for q in Q)"
  check "$loop: queue 0 is random read/write at --rwmix=70" \
    "Q[0]['flushes'] == 0 and 0.6 < Q[0]['reads'] / Q[0]['ios'] < 0.8"
  check "$loop: queue 1 only reads" "Q[1]['reads'] == Q[1]['ios'] > 0"
  check "$loop: queue 2 writes, flushing after every 32 (per slot)" \
    "Q[2]['reads'] == 0 and Q[2]['flushes'] > 0 and
     abs(32 * Q[2]['flushes'] - Q[2]['writes']) <= 32 * 8"
done
# With writes throttled, the sequential-read queue completes far more than the
# write+flush queue (the per-queue figures measure each queue).
"$EMU" --queues=3 --depth=4 --seconds=0.5 --json \
  --spec='driver=throttle,iops-write=1000,file.driver=null,file.size=1G' >"$TMP"
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: throttled exit $rc"; fail=1; }
check "throttled writes: queue 1 (reads) > 10 x queue 2 (writes)" \
  "Q[1]['ios'] > 10 * Q[2]['ios'] > 0"
# On the null driver every request takes the same time, so every queue
# completes as many requests; the text report says why.
"$EMU" --queues=3 --depth=4 --seconds=0.3 >"$TMP" 2>&1
if grep -q "I/Os: .* reads, .* writes, .* flushes" "$TMP" &&
   grep -q "note: every queue" "$TMP"; then
  echo "PASS: text report: per-queue counts and the equal-IOPS note"
else
  echo "FAIL: text report"; cat "$TMP"; fail=1
fi
# Sizes as fio's: 4k = 4096, 1m = 1 MiB (the request size in bytes per I/O).
for bs in 4k 4096 4K 1m; do
  "$EMU" --queues=3 --depth=2 --seconds=0.2 --bs=$bs --json >"$TMP"
  rc=$?
  [[ $rc == 0 ]] || { echo "FAIL: --bs=$bs exit $rc"; fail=1; }
  want=$(case $bs in 1m) echo 1048576 ;; *) echo 4096 ;; esac)
  check "--bs=$bs: $want bytes per read or write" \
    "all(q['ios'] > 0 and q['bytes'] == $want * (q['reads'] + q['writes']) for q in Q)"
done
"$EMU" --queues=1 --depth=2 --seconds=0.2 --rwmix=100 --json >"$TMP"
check "--rwmix=100: queue 0 only reads" "Q[0]['writes'] == 0 and Q[0]['reads'] > 0"
# Writes failing under the filter: the emulator counts errors and exits 1.
"$EMU" --loop=libevent --queues=3 --depth=4 --seconds=0.3 --json \
  --spec='driver=error-inject,event=write,errno=5,file.driver=null,file.size=1G' >"$TMP"
rc=$?
[[ $rc == 1 ]] && echo "PASS: exit 1 on I/O errors" || { echo "FAIL: exit $rc on I/O errors"; fail=1; }
check "errors counted on the write queues" "j['errors'] > 0 and j['queues'][1]['errors'] == 0"
# --help (and -h): every flag, on stdout, exit 0.
for h in --help -h; do
  "$EMU" $h >"$TMP" 2>/dev/null
  rc=$?
  missing=""
  for f in --loop= --queues= --depth= --seconds= --spec= --rwmix= --bs= --json \
           --write-iolog= --help; do
    grep -q -e "$f" "$TMP" || missing+=" $f"
  done
  if [[ $rc == 0 && -z "$missing" ]]; then echo "PASS: $h lists every flag"
  else echo "FAIL: $h exit $rc, missing:$missing"; cat "$TMP"; fail=1; fi
done
# Bad arguments: exit 2, one message naming the flag and the value.
refused() {  # expected stderr text, then the arguments
  local want="$1"; shift
  "$EMU" --seconds=0.1 "$@" >/dev/null 2>"$TMP"
  local rc=$?
  if [[ $rc == 2 ]] && grep -qF -e "$want" "$TMP"; then echo "PASS: $* refused"
  else echo "FAIL: $* exit $rc (want 2 and '$want')"; cat "$TMP"; fail=1; fi
}
refused "--loop: expected native, libevent or asio, got 'uv'" --loop=uv
refused "--bs: expected a size (bytes, or with a k/m/g suffix), got '4q'" --bs=4q
refused "--bs: expected a size" --bs=
refused "--bs: expected a size" --bs=-1
refused "--bs: expected a size" --bs=99999999999999999999k
refused "--bs: expected a multiple of 512 bytes, got '1000'" --bs=1000
refused "--queues: expected an integer from 1 to 65535, got 'x'" --queues=x
refused "--queues: expected an integer" --queues=0
refused "--queues: expected an integer" --queues=4x
refused "--depth: expected an integer" --depth=99999999999999999999
refused "--rwmix: expected an integer from 0 to 100, got '101'" --rwmix=101
refused "--seconds: expected a number of seconds" --seconds=abc
refused "--seconds: expected a number of seconds" --seconds=0
refused "--seconds: expected a number of seconds" --seconds=nan
refused "--bs needs a value" --bs 4k
refused "--queues x --depth: at most" --queues=65535 --depth=32768
refused "unknown argument '--frobnicate'" --frobnicate
refused "try --help" --frobnicate
exit $fail

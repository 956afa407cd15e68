#!/usr/bin/env bash
# Runs the virtio-blk-like emulator on the native, libevent and Asio loops,
# over the null driver and over the error-inject filter, and checks its JSON
# report with python3: every queue made progress, no errors where none were
# injected, errors reported (and a non-zero exit) where they were.
set -uo pipefail
EMU="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-blkstack}/tools/emulator/emulator"
[[ -x "$EMU" ]] || EMU="$(dirname "$0")/../../../tools/emulator/emulator"
fail=0
check() {  # name, python condition over j (the report)
  if python3 -c "import json,sys; j=json.load(open('$TMP')); sys.exit(0 if ($2) else 1)"; then
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
done
# Writes failing under the filter: the emulator counts errors and exits 1.
"$EMU" --loop=libevent --queues=3 --depth=4 --seconds=0.3 --json \
  --spec='driver=error-inject,event=write,errno=5,file.driver=null,file.size=1G' >"$TMP"
rc=$?
[[ $rc == 1 ]] && echo "PASS: exit 1 on I/O errors" || { echo "FAIL: exit $rc on I/O errors"; fail=1; }
check "errors counted on the write queues" "j['errors'] > 0 and j['queues'][1]['errors'] == 0"
# Bad arguments are refused with a message.
if "$EMU" --loop=uv 2>"$TMP"; then echo "FAIL: --loop=uv accepted"; fail=1
elif grep -q "native, libevent or asio" "$TMP"; then echo "PASS: bad --loop refused"
else echo "FAIL: bad --loop message"; cat "$TMP"; fail=1; fi
exit $fail

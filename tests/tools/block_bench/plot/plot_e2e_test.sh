#!/bin/bash
# block-bench plot and compare --plot on real runs: each SVG renders with
# rsvg-convert to a PNG of the declared size, and holds the curves asked for.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/plot.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v rsvg-convert >/dev/null; then
  [ "${BLK_TEST_NO_SKIP:-0}" = 1 ] && fail "rsvg-convert is missing (librsvg2-bin) and BLK_TEST_NO_SKIP=1"
  echo "SKIPPED: rsvg-convert is not installed (scripts/setup.sh installs librsvg2-bin)"
  exit 0
fi
# render SVG: must convert, and the PNG has the SVG's width.
render() {
  rsvg-convert -o "$1.png" "$1" 2>"$T/rsvg.err" || fail "rsvg-convert $1: $(cat "$T/rsvg.err")"
  local w
  w=$(python3 -c "import struct; d=open('$1.png','rb').read(24); print(struct.unpack('>I', d[16:20])[0])")
  [ "$w" = 900 ] || fail "$1.png is $w pixels wide, not 900"
}
cd "$T" || fail cd
# Two runs with json+ (whole histograms) and latency / IOPS logs.
for lat in 50000 200000; do
  "$BB" --name=j$lat --rw=randread --bs=4k --size=8m --iodepth=2 --output-format=json+ \
    --write_lat_log=r$lat --write_iops_log=r$lat --log_avg_msec=10 \
    --blockdev=driver=null,size=64m,latency-ns=$lat >"r$lat.json" || fail "run $lat"
done
ls r50000_clat.*.log r50000_iops.*.log >/dev/null || fail "no logs: $(ls)"
"$BB" plot --output=curves.svg --title="two runs" r50000.json r200000.json || fail "plot json"
render curves.svg
[ "$(grep -c '<polyline' curves.svg)" -eq 2 ] || fail "curves.svg: not 2 curves"
grep -q ">99%</text>" curves.svg || fail "no nines axis"
grep -q ">r200000.json j200000 read</text>" curves.svg || fail "no legend"
"$BB" plot --output=time.svg r50000_clat.*.log r50000_iops.*.log r200000_iops.*.log || fail "plot logs"
render time.svg
grep -q ">Latency over time</text>" time.svg || fail "no latency panel"
grep -q ">IOPS over time</text>" time.svg || fail "no IOPS panel"
[ "$(grep -c '<polyline' time.svg)" -eq 3 ] || fail "time.svg: not 3 series"
# To stdout, and errors.
"$BB" plot r50000.json | grep -q "</svg>" || fail "plot to stdout"
"$BB" plot nope.json 2>"$T/err" && fail "plot of a missing file succeeded"
grep -q "nope.json: No such file" "$T/err" || fail "missing file: $(cat "$T/err")"
printf '1, 2\nbad line\n' >x_lat.1.log
"$BB" plot x_lat.1.log 2>"$T/err" && fail "bad log accepted"
grep -q "x_lat.1.log:2: expected" "$T/err" || fail "bad log: $(cat "$T/err")"
echo "ok: plot"

# compare --plot over repetitions.
mkdir a b
for i in 1 2 3 4 5; do
  "$BB" --name=j --rw=randread --bs=4k --size=1m --output-format=json+ \
    --blockdev=driver=null,size=64m,latency-ns=50000 >a/$i.json || fail "a run"
  "$BB" --name=j --rw=randread --bs=4k --size=1m --output-format=json+ \
    --blockdev=driver=null,size=64m,latency-ns=500000 >b/$i.json || fail "b run"
done
"$BB" compare --metric=p50,p99 --plot=cmp.svg a b >/dev/null
[ $? -eq 1 ] || fail "compare: not worse"
render cmp.svg
grep -q "clat p50 per run</text>" cmp.svg || fail "no per-run panel"
grep -q ">NEW median</text>" cmp.svg || fail "no median line"
grep -q "every run</text>" cmp.svg || fail "no curve panel"
[ "$(grep -c '<polyline' cmp.svg)" -ge 10 ] || fail "cmp.svg: fewer than 10 curves"
"$BB" compare --plot=/nonexistent/x.svg a b >/dev/null 2>"$T/err"
[ $? -eq 125 ] || fail "--plot into a missing directory: not 125"
grep -q "plot=/nonexistent/x.svg: No such file" "$T/err" || fail "$(cat "$T/err")"
echo "ok: compare --plot"
echo PASS

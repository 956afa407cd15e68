#!/usr/bin/env bash
# Several files per job (nrfiles, filename=a:b:c, filesize,
# file_service_type), end to end against fio 3.33 on the same jobs:
#  * the files each I/O went to, from write_iolog: for roundrobin,
#    roundrobin:4 and sequential the same sequence as fio's; for random the
#    same number of I/Os per file (each file's share) and the same total;
#  * fio's generated names (JOB.CLONE.FILE), filesize, the issued counts;
#  * verify=crc32c over 4 files and 2 clones: every block checked, none bad;
#  * a time-based io_uring run over 2 files;
#  * offset_increment (clone N starts N increments further, as fio's);
#  * clear errors: nrfiles with one filename, blockdev= with nrfiles, a
#    missing file with allow_file_create=0 (named), file_service_type=zipf.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
err() {  # err WANT ARGS...: exit 1 and WANT on stderr
  local want=$1; shift
  if "$BB" "$@" > out.txt 2> err.txt; then fail "accepted: $*"; fi
  grep -qF -- "$want" err.txt || fail "$*: message: $(cat err.txt)"
}
cd "$T"

# The file of each read in an iolog, one name per line, the job name and
# the tool's prefix taken off (fio's and block-bench's names differ only there).
files_of() { awk '$3 == "read" { print $2 }' "$1" | sed -E 's/^(bb|fio)-?//'; }

for svc in roundrobin roundrobin:4 sequential random; do
  for tool in bb fio; do
    rm -rf "$tool" && mkdir "$tool"
    if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
    (cd "$tool" && "${cmd[@]}" --name=$tool --nrfiles=3 --size=3m --rw=randread --bs=64k \
      --ioengine=psync --file_service_type=$svc --write_iolog=io.log --output-format=json \
      --output=out.json) || fail "$tool $svc"
    files_of "$tool/io.log" > "$tool.seq"
  done
  python3 - "$svc" <<'PY' || fail "$svc differs from fio"
import collections, json, sys
svc = sys.argv[1]
bb, fio = open("bb.seq").read().split(), open("fio.seq").read().split()
n = lambda t: json.load(open(t + "/out.json"))["jobs"][0]["read"]["total_ios"]
assert n("bb") == n("fio") == 48, (n("bb"), n("fio"))
assert sorted(set(bb)) == [".0.0", ".0.1", ".0.2"], set(bb)
if svc == "random":
    assert collections.Counter(bb) == collections.Counter(fio), (collections.Counter(bb), collections.Counter(fio))
else:
    assert bb == fio, (bb[:12], fio[:12])
print("%s: %d I/Os, files as fio's" % (svc, len(bb)))
PY
done
# fio's names for the generated files, 1 MiB each.
for i in 0 1 2; do
  [[ $(stat -c %s bb/bb.0.$i) == 1048576 ]] || fail "bb/bb.0.$i: $(ls -l bb)"
done

# filename= list and filesize: the job covers each named file.
"$BB" --name=l --filename=x:y --filesize=256k --rw=write --bs=4k --output-format=json --output=l.json \
  || fail "filename list"
[[ $(stat -c %s x) == 262144 && $(stat -c %s y) == 262144 ]] || fail "sizes: $(ls -l x y)"
python3 -c "import json; r = json.load(open('l.json'))['jobs'][0]['write']; assert r['total_ios'] == 128, r['total_ios']" \
  || fail "filename list: not 128 writes"

# filesize=LOW-HIGH: each file laid out at a size drawn in the range, a
# multiple of bs, and the job reads every file whole, as fio; the sizes
# are the same on a second run.
"$BB" --name=r --nrfiles=6 --filesize=64k-512k --rw=read --bs=8k --output-format=json --output=r.json \
  || fail "filesize range"
sizes="$(stat -c %s r.0.[0-5] | tr '\n' ' ')"
python3 - "$sizes" <<'PY' || fail "filesize range: sizes $sizes"
import json, sys
sizes = [int(s) for s in sys.argv[1].split()]
assert len(sizes) == 6, sizes
assert all(65536 <= s <= 524288 and s % 8192 == 0 for s in sizes), sizes
assert len(set(sizes)) > 1, sizes
r = json.load(open("r.json"))["jobs"][0]["read"]
assert r["io_bytes"] == sum(sizes), (r["io_bytes"], sum(sizes))
PY
rm -f r.0.*
"$BB" --name=r --nrfiles=6 --filesize=64k-512k --rw=read --bs=8k --output-format=json --output=r2.json \
  || fail "filesize range again"
[[ "$(stat -c %s r.0.[0-5] | tr '\n' ' ')" == "$sizes" ]] || fail "filesize range: other sizes the second time"

# filename_format with filesize= alone (OpenZFS's perf jobs): clone N's file
# is fileN, filesize bytes, read whole.
"$BB" --name=z --filename_format='file$jobnum' --numjobs=2 --filesize=128k --rw=read --bs=4k \
  --output-format=json --output=z.json || fail "filename_format"
[[ $(stat -c %s file0) == 131072 && $(stat -c %s file1) == 131072 ]] || fail "filename_format: $(ls -l)"
python3 -c "import json; assert [j['read']['total_ios'] for j in json.load(open('z.json'))['jobs']] == [32, 32]" \
  || fail "filename_format: not 32 reads per clone"

# Verify across files and clones.
"$BB" --name=v --nrfiles=4 --filesize=1m --rw=randwrite --bs=4k --ioengine=libaio --direct=1 \
  --iodepth=8 --verify=crc32c --numjobs=2 --output-format=json --output=v.json || fail "verify run"
python3 - <<'PY' || fail "verify over files"
import json
for j in json.load(open("v.json"))["jobs"]:
    b = j["blkstack"]
    assert j["error"] == 0 and j["write"]["total_ios"] == 1024, (j["error"], j["write"]["total_ios"])
    assert b["verified"] == 1024 and b["verify_errors"] == 0 and b["verify_not_verified"] == 0, b
print("verify: 2 clones x 4 files, 1024 blocks each checked")
PY
[[ -f v.1.3 ]] || fail "no v.1.3 (second clone's fourth file)"

# Time based, io_uring, two files.
"$BB" --name=t --nrfiles=2 --size=2m --rw=randrw --bs=4k --ioengine=io_uring --direct=1 --iodepth=4 \
  --runtime=1 --time_based --write_iolog=t.log --output-format=json --output=t.json || fail "time based"
[[ $(awk '$3 == "read" || $3 == "write" { print $2 }' t.log | sort -u | wc -l) == 2 ]] || fail "t: not 2 files used"

# unlink=1 deletes the job's files when it ends.
mkdir u && (cd u && "$BB" --name=u --nrfiles=3 --size=3m --rw=randread --bs=64k --unlink=1 \
  --openfiles=3 --output=/dev/null) || fail "unlink run"
[[ -z "$(ls u)" ]] || fail "unlink=1 left $(ls u)"
# Clones sharing one file each unlink it when they end: the first removes
# it, the others say nothing (as fio; fio's examples/mobile-storage.fio;
# time based, so that they end together).
mkdir us && (cd us && "$BB" --name=us --filename=shared --size=1m --rw=randwrite --bs=4k \
  --numjobs=6 --unlink=1 --time_based --runtime=1 --output=/dev/null 2>../us.err) ||
  fail "shared unlink run: $(cat us.err)"
[[ -z "$(ls us)" && ! -s us.err ]] || fail "shared unlink: left [$(ls us)], stderr [$(cat us.err)]"

# openfiles below nrfiles (fio's t/verify.py test 6): written and verified
# through every file, with at most 2 of the 3 in use at once.
mkdir of && (cd of && "$BB" --name=of --filesize=512k --nrfiles=3 --openfiles=2 --rw=randwrite \
  --bs=4k --verify=crc32c --write_iolog=of.log --output-format=json --output=of.json) \
  || fail "openfiles=2 nrfiles=3 verify run"
python3 - of/of.json <<'PY' || fail "openfiles=2 verify counts"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["error"] == 0, j["error"]
assert j["write"]["total_ios"] == 384 and j["read"]["total_ios"] == 384, (j["write"]["total_ios"], j["read"]["total_ios"])
print("openfiles=2: 384 blocks written and read back")
PY
# The write phase's files: the third file's first write comes after one of
# the first two has had its last.
python3 - of/of.log <<'PY' || fail "openfiles=2: more than 2 files in use at once"
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[2] == "write"]
files = [r[1] for r in rows]
last = {f: i for i, f in enumerate(files)}
first = {}
for i, f in enumerate(files):
    first.setdefault(f, i)
order = sorted(first, key=first.get)
assert len(order) == 3, order
assert first[order[2]] > min(last[order[0]], last[order[1]]), (first, last)
print("openfiles=2: the third file starts after another is done")
PY

# offset_increment: clone N starts N * increment further, as fio's; the
# file ends where fio's does.
for tool in bb fio; do
  if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
  "${cmd[@]}" --name=o --filename=inc-$tool --size=1m --numjobs=3 --offset_increment=1m \
    --rw=write --bs=256k --write_iolog=inc-$tool.log --output=/dev/null || fail "$tool offset_increment"
done
[[ $(stat -c %s inc-bb) == $(stat -c %s inc-fio) && $(stat -c %s inc-bb) == 3145728 ]] \
  || fail "offset_increment sizes: $(stat -c %s inc-bb) vs fio $(stat -c %s inc-fio)"
[[ "$(awk '$3 == "write" { print $4 }' inc-bb.log.2 | sort -n | head -1)" == 2097152 ]] \
  || fail "clone 2 does not start at 2m: $(head -5 inc-bb.log.2)"
err "offset_increment with a percentage offset" --name=e --size=1m --offset=10% --offset_increment=1m

# filename= names the job's files: nrfiles=3 beside one name is one file
# holding all of size=, as fio's.
for tool in bb fio; do
  if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
  "${cmd[@]}" --name=one --filename=one-$tool --nrfiles=3 --size=3m --rw=write --bs=1m \
    --output-format=json --output=one-$tool.json || fail "$tool filename= with nrfiles=3"
  python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['jobs'][0]['write']; assert w['io_bytes'] == 3 << 20, w['io_bytes']" \
    one-$tool.json || fail "$tool: filename= with nrfiles=3 did not write 3 MiB to one file"
done
[[ $(stat -c %s one-bb) == 3145728 && $(stat -c %s one-fio) == 3145728 ]] ||
  fail "filename= with nrfiles=3: one-bb $(stat -c %s one-bb), one-fio $(stat -c %s one-fio)"
ls one-bb.* one-fio.* 2>/dev/null | grep -qv json && fail "more files than filename= named: $(ls one-*)"

# Errors.
err "nrfiles=2: blockdev= opens one graph" --name=e --blockdev=driver=null,size=1M --nrfiles=2
err "file_service_type=zipf (a distribution over the files) is not implemented" \
  --name=e --nrfiles=2 --size=1m --file_service_type=zipf:1.2
err "missing2: does not exist (allow_file_create=0)" \
  --name=e --filename=x:missing2 --size=1m --rw=read --allow_file_create=0
echo PASS

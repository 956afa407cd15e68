#!/bin/bash
# The same job does the same I/O as fio 3.33, I/O by I/O: on the null
# engine, fio and block-bench each write an iolog (--write_iolog) and the
# test requires the two sequences of (direction, offset, length) to be
# equal.  This covers what fio decides with its own random numbers: the
# random offsets (fio's taus88 "random" state and its random map), the
# read/write mix (get_rw_ddir's rwmix_issues rule and its "mix" state), the
# lengths of bsrange/bssplit (get_next_buflen and its per-direction "bs"
# states), percentage_random and randread:N (seq_rand states, and fio's
# sequential I/Os that leave the map alone), blockalign turning the map off,
# strided zones, random_distribution (zipf, pareto and normal from fio's
# generators seeded by the hash of the file's name; zoned and zoned_abs
# from its zone state and offsets), random_generator=tausworthe64 and lfsr,
# several files, the seeds (randseed, randrepeat,
# allrandrepeat, the job's
# thread number), offset/norandommap, which file serves each I/O
# (file_service_type, openfiles; compared with the files' names on psync),
# and fio's passes: where loops=,
# io_size= and number_ios= end a pass and start another, on a synchronous
# engine (null) and on one that queues (libaio on a file), and a time based
# job's passes (the first I/Os of each tool's run).  Each job is its own run
# (fio's iolog of concurrent clones interleaves their lines); the clones of
# numjobs= are compared by their per-direction counts in JSON.
#
# What does not match fio (docs/block-bench.md, "Same I/O as fio") is not
# listed here: rate-paced mixes.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
require_tool python3 python3
fail() { echo "FAIL: $*"; exit 1; }
T="$TEST_TMPDIR"
cd "$T" || fail cd

# seq TOOL OUT ARGS...: TOOL's I/O sequence for the job ARGS on $ENGINE
# (null unless set).
ENGINE="--ioengine=null"
seq_of() {
  local tool=$1 out=$2; shift 2
  rm -f "$out.log"
  # shellcheck disable=SC2086
  "$tool" --name=j $ENGINE "$@" --write_iolog="$out.log" >"$out.out" 2>"$out.err" ||
    fail "$tool $*: exit $?: $(cat "$out.err")"
  awk '$3=="read"||$3=="write"||$3=="trim"{print $3,$4,$5}' "$out.log" >"$out.seq"
}

# compare_seqs WANT_IOS WHAT ARGS...: f.seq (fio's) has WANT_IOS lines and
# b.seq (block-bench's) is equal to it; WHAT names the lines' fields.
compare_seqs() {
  local want=$1 what=$2; shift 2
  local n m
  n=$(wc -l <f.seq); m=$(wc -l <b.seq)
  [ "$n" = "$want" ] || fail "fio did $n I/Os, not $want: $*"
  if ! cmp -s f.seq b.seq; then
    echo "fio | block-bench, first differences:"
    diff f.seq b.seq | head -6
    fail "block-bench's $m I/Os ($what) differ from fio's $n: $*"
  fi
}

# same WANT_IOS ARGS...: fio and block-bench issue the same WANT_IOS I/Os.
same() {
  local want=$1; shift
  seq_of fio f "$@"
  seq_of "$BB" b "$@"
  compare_seqs "$want" "direction, offset, length" "$@"
  echo "same $want I/Os: $*"
}

same 1024 --rw=randread --bs=4k --size=4m
same 512 --rw=randwrite --bs=16k --size=8m
same 512 --rw=randtrim --bs=4k --size=2m
same 2048 --rw=randrw --bs=4k --size=8m
same 512 --rw=randrw --bs=16k --size=8m --rwmixread=30
same 256 --rw=randrw --bs=64k --size=16m --rwmixread=10
same 1024 --rw=randrw --bs=8k --size=8m --rwmixread=80
same 1024 --rw=randrw --bs=4k --size=4m --randseed=1234
same 1024 --rw=randrw --bs=4k --size=4m --randrepeat=0 --randseed=42
same 1024 --rw=randrw --bs=4k --size=4m --allrandrepeat=1
same 768 --rw=randrw --bs=4k --size=1m --loops=3
same 512 --rw=randread --bs=4k --size=2m --offset=1m
same 2048 --rw=randread --bs=4k --size=4m --io_size=8m
same 1024 --rw=randrw --bs=4k --size=4m --norandommap=1
same 1024 --rw=rw --bs=4k --size=4m --rwmixread=60
# Block size ranges and splits, sequential and random.
same 244 --rw=read --bsrange=4k-64k --size=8m
same 353 --rw=randread --bsrange=4k-64k --size=8m
same 310 --rw=randread --bsrange=4k-64k --bs_unaligned --size=8m
same 1014 --rw=randread --bsrange=3k-12k --size=6m
same 746 --rw=randread --bssplit=4k:8k:64k/20 --size=8m
same 974 --rw=randwrite --bssplit=4k/10:8k/60:16k/30 --size=8m
same 721 --rw=randrw --bssplit=4k/50:64k/50,8k/100 --size=8m
same 396 --rw=randrw --bsrange=4k-16k,8k-64k --size=8m
same 624 --rw=randwrite --bsrange=4k-32k --size=8m --verify=crc32c --do_verify=0
same 1194 --rw=randtrimwrite --bsrange=4k-32k --size=8m
same 244 --rw=randread --bsrange=4k-64k --size=8m --norandommap
same 706 --rw=randread --bsrange=4k-64k --size=8m --loops=2
same 838 --rw=read:-16k --bsrange=4k-16k --size=8m
# Sequential runs inside random jobs, blockalign, zones, odd sizes.
same 246 --rw=randread:4 --bsrange=4k-64k --size=8m
same 254 --rw=randread --percentage_random=50 --bsrange=4k-64k --size=8m
same 2048 --rw=randrw --percentage_random=30,80 --size=8m
same 2048 --rw=randread --bs=4k --blockalign=512 --size=8m
same 2048 --rw=randwrite --bs=4k --blockalign=8k --size=8m
same 293 --rw=randread --bsrange=4k-64k --size=8m --zonemode=strided --zonesize=1m --zonerange=2m
same 2048 --rw=randrw --bs=4k --size=8m --zonemode=strided --zonesize=4m --zonerange=1m
same 3 --rw=read --size=10k --filesize=1m
# With filesize=, the region runs from offset= to the file's end, and size=
# is capped to it (offset=N% is of the file).
same 8 --rw=read --offset=32k --size=64k --filesize=64k
same 16 --rw=randrw --offset=32k --size=64k --filesize=64k --loops=2
same 16 --rw=read --offset=32k --size=64k --filesize=64k --io_size=64k
same 16 --rw=read --offset=32k --size=128k --filesize=64k --nrfiles=2
same 8 --rw=randread --offset=50% --size=64k --filesize=64k
same 8 --rw=read --offset=32k --size=75% --filesize=64k
same 4 --rw=read --offset=32k --size=25% --filesize=64k
same 8 --rw=read --offset=32k --size=64k --filesize=64k --zonemode=strided --zonesize=8k --zonerange=16k
same 2 --rw=randread --size=10k
same 3 --rw=randread --size=1m --io_size=10k
# Passes.  A full map ends one (10k holds two 4k blocks: 3 passes of 2); a
# synchronous engine never ends one by bytes (norandommap: io_size or
# loops x size in one pass, from one seed); number_ios counts x loops.
same 6 --rw=randread --bs=4k --size=10k --loops=3
same 8 --rw=randread --bs=4k --size=10k --io_size=30k
same 384 --rw=randread --size=1m --io_size=1536k
same 512 --rw=randread --size=1m --io_size=2m --norandommap
same 1130 --rw=randread --bssplit=4k/25:8k/25:16k/25:32k/25 --size=8m --norandommap --loops=2
same 200 --rw=randread --size=1m --number_ios=100 --loops=2
same 2048 --rw=rw --size=4m --io_size=8m
same 435 --rw=read --bsrange=3k-12k --size=1m --loops=3
same 793 --rw=randrw --bssplit=4k/50:16k/50 --size=2m --loops=3 --randrepeat=0 --randseed=5
same 160 --rw=randread --size=1m --zonemode=strided --zonesize=64k --zonerange=128k --zoneskip=64k --loops=2
# An engine that queues: fio ends each pass after size bytes (random reads
# without a map: two passes from the seeds; random writes: one pass up to
# io_size).
truncate -s 16m data || fail truncate
ENGINE="--ioengine=libaio --iodepth=8 --filename=$T/data"
same 1129 --rw=randread --bssplit=4k/25:8k/25:16k/25:32k/25 --size=8m --norandommap --loops=2
same 512 --rw=randread --size=1m --io_size=2m --norandommap
same 768 --rw=randwrite --size=1m --io_size=3m --norandommap
same 237 --rw=randread:4 --size=1m --loops=2
same 435 --rw=read --bsrange=3k-12k --size=1m --loops=3
same 512 --rw=randread --random_distribution=zipf:1.1 --size=2m
same 1024 --rw=randrw --size=2m --loops=2 --random_generator=lfsr
# verify without a map at depth > 1: writes of one block in flight together
# are read back once, as fio's (block-bench takes either's data).
same 413 --rw=randwrite --size=1m --norandommap --verify=crc32c
same 104 --rw=randwrite --size=256k --norandommap --verify=md5 --iodepth=16
# verify after every pass (fio's do_verify after each do_io), in the order
# of the writes with the random map (fio's io_hist list), else by offset.
same 96 --rw=randwrite --size=64k --verify=crc32c --loops=3 --iodepth=4
same 208 --rw=randwrite --size=256k --norandommap --verify=crc32c --loops=2
same 268 --rw=randwrite --bsrange=4k-16k --size=1m --verify=crc32c --iodepth=4
# io_size counts the read-back too (keep_running's io_bytes): 2 passes.
same 64 --rw=randwrite --size=64k --io_size=192k --verify=crc32c --iodepth=4
same 66 --rw=randrw --size=64k --io_size=192k --verify=crc32c --iodepth=4
# A job that ran out of I/O still begins another pass when its read-back
# leaves it a largest block short of size (fio's clear_io_state before
# do_verify leaves no file done): 15 writes of 256k and 14 reads, 15 read
# back (7736 KiB of 8192), then a second pass.
same 88 --rw=randrw --bs=4k,256k --size=8m --verify=crc32c
same 184 --rw=randwrite --bsrange=4k-256k --size=8m --verify=crc32c
same 768 --rw=randwrite --size=1m --io_size=3m --norandommap --random_generator=lfsr
ENGINE="--ioengine=null"

# random_distribution: zipf, pareto and normal (the seed: the hash of the
# file's name, "j.0.0" on null and the path above, or randseed's); zoned.
same 256 --rw=randread --random_distribution=zipf:1.2 --size=1m
same 1024 --rw=randread --random_distribution=zipf:0.8:0.3 --size=4m
same 256 --rw=randread --random_distribution=pareto:0.3 --size=1m
same 212 --rw=randread --random_distribution=pareto:0.9:0.7 --size=2m --bsrange=4k-16k
same 256 --rw=randread --random_distribution=normal --size=1m
same 256 --rw=randread --random_distribution=normal:30:0.2 --size=1m
same 256 --rw=randread --random_distribution=zipf:1.2 --size=1m --randseed=7
same 256 --rw=randread --random_distribution=zipf:1.2 --size=1m --randrepeat=0 --randseed=7
same 512 --rw=randread --random_distribution=zipf:1.2 --size=1m --loops=2
# A write block past size= ends the pass, as in fio (4k ranges, 16k writes).
same 3 --rw=randrw --random_distribution=zipf:1.1 --size=4m --bs=4k,16k
same 1024 --rw=randread --random_distribution=zoned:60/10:30/20:10/70 --size=4m
same 838 --rw=randread --random_distribution=zoned:50/10:50/90 --size=4m --bsrange=4k-16k --loops=2
same 2048 --rw=randread --random_distribution=zoned_abs:60/256k:40/768k --size=4m --loops=2

# random_generator=tausworthe64: fio's 64-bit generator for offsets, block
# sizes and the file service, from 64-bit seeds; its mix, seq_rand and zone
# state stay 32-bit, as fio 3.33's.
same 256 --rw=randread --size=1m --norandommap --random_generator=tausworthe64
same 664 --rw=randread --bsrange=4k-64k --size=8m --random_generator=tausworthe64 --loops=2
same 1062 --rw=randrw --bssplit=4k/50:16k/50 --size=8m --random_generator=tausworthe64
same 1024 --rw=randread --percentage_random=50 --size=4m --random_generator=tausworthe64
same 1024 --rw=randread --random_distribution=zoned:50/10:50/90 --size=4m --random_generator=tausworthe64

# random_generator=lfsr: fio's LFSR per file (one value per rw_min_bs block,
# from the FIO_RAND_BLOCK_OFF seed, no map), reset with each pass and zone;
# zoned distributions take its next block whatever the zone, as fio's.
same 16384 --rw=randread --size=64m --random_generator=lfsr
same 512 --rw=randwrite --bs=16k --size=8m --randseed=1234 --random_generator=lfsr
same 1024 --rw=randrw --size=4m --rwmixread=30 --randrepeat=0 --randseed=7 --random_generator=lfsr
same 768 --rw=randread --size=1m --loops=3 --random_generator=lfsr
same 857 --rw=randread --bssplit=4k/50:16k/50 --size=8m --random_generator=lfsr
same 3 --rw=randrw --bs=4k,16k --size=8m --random_generator=lfsr
same 25 --rw=randread --size=100k --random_generator=lfsr
same 256 --rw=randread:4 --size=1m --random_generator=lfsr
same 2048 --rw=randread --size=8m --zonemode=strided --zonesize=256k --zonerange=1m --zoneskip=1m --random_generator=lfsr
same 43 --rw=randread --size=8m --random_distribution=zoned:50/10:50/90 --random_generator=lfsr
same 768 --nrfiles=3 --rw=randrw --size=3m --file_service_type=random --random_generator=lfsr

# same_files WANT_IOS ARGS...: as same, on files (psync, in $T/d) with each
# I/O's file compared too (the null engine's iolog names no file).
same_files() {
  local want=$1; shift
  local t tool
  for t in f b; do
    if [ "$t" = f ]; then tool=fio; else tool=$BB; fi
    rm -rf d "$t.log" && mkdir d || fail "mkdir d"
    "$tool" --name=j --ioengine=psync --directory="$T/d" "$@" --write_iolog="$t.log" \
      >"$t.out" 2>"$t.err" || fail "$tool $*: exit $?: $(cat "$t.err")"
    awk '$3=="read"||$3=="write"||$3=="trim"{n=split($2,p,"/"); print p[n],$3,$4,$5}' \
      "$t.log" >"$t.seq"
  done
  compare_seqs "$want" "file, direction, offset, length" "$@"
  echo "same $want I/Os and files: $*"
}

# Which file: round robin from the first, at random from fio's file state
# (re-seeded with each pass), the next pick after a pass; with openfiles=
# below nrfiles a file opens when first picked, closes when done, and a
# pick of a closed file with openfiles open is passed over.
same_files 24 --bs=4k --rw=read --nrfiles=3 --size=48k --loops=2
same_files 24 --bs=4k --rw=read --nrfiles=3 --size=48k --loops=2 --file_service_type=random
same_files 24 --bs=4k --rw=read --nrfiles=3 --size=48k --loops=2 --file_service_type=sequential
same_files 24 --bs=4k --rw=read --nrfiles=3 --size=48k --loops=2 --file_service_type=roundrobin:2
same_files 12 --bs=4k --rw=write --nrfiles=3 --openfiles=2 --size=48k
same_files 24 --bs=4k --rw=randwrite --nrfiles=3 --openfiles=2 --size=48k --loops=2
same_files 15 --bs=4k --rw=read --nrfiles=5 --openfiles=2 --size=60k --file_service_type=random
same_files 48 --bs=4k --rw=randread --nrfiles=4 --size=64k --loops=3 --file_service_type=random:2 --openfiles=2
same_files 20 --bs=4k --rw=randread --nrfiles=5 --openfiles=3 --size=100k --file_service_type=roundrobin:3 --bsrange=4k-8k
same_files 8 --bs=4k --rw=read --nrfiles=4 --openfiles=1 --size=32k
same_files 16 --bs=4k --rw=randrw --nrfiles=4 --openfiles=2 --size=64k --file_service_type=sequential
# On an engine that queues, the job's bytes end a pass before the next
# file is picked: the next pass begins with the file after the last.
same_files 8 --bs=4k --rw=write --nrfiles=2 --filesize=8k --loops=2 --ioengine=libaio --iodepth=4
same_files 36 --bs=4k --rw=randwrite --nrfiles=3 --filesize=16k --file_service_type=random --loops=3 --ioengine=libaio --iodepth=2
same_files 24 --bs=4k --rw=read --nrfiles=3 --size=48k --loops=2 --file_service_type=random --randrepeat=0 --randseed=5
# fio's engines that run each I/O in the job's thread without a read or
# write call (mmap, falloc, ftruncate): the same sequence as psync's.
same_files 24 --bs=4k --rw=randrw --nrfiles=2 --size=48k --loops=2 --ioengine=mmap
same_files 14 --bsrange=4k-16k --rw=randwrite --nrfiles=3 --size=96k --ioengine=falloc
same_files 16 --bs=4k --rw=randwrite --size=64k --norandommap --ioengine=ftruncate
# filesize=LOW-HIGH: each file's size drawn from fio's file-size state.
same_files 626 --rw=read --bs=4k --filesize=16k-1m --nrfiles=5
same_files 218 --rw=randread --bsrange=4k-16k --filesize=16k-1m --nrfiles=4
same_files 146 --rw=read --bs=4k --filesize=100k-300k --nrfiles=3 --random_generator=tausworthe64
same 14 --rw=read --bs=4k --offset=32k --size=64k --filesize=48k-64k --nrfiles=3

# Several files: one set of the job's random states for all of them, files
# taken round robin, at random (fio's file state) or one after another.
same 16 --nrfiles=2 --rw=randread --size=64k
same 768 --nrfiles=3 --rw=randread --size=3m
same 106 --nrfiles=4 --rw=read --size=1m --bsrange=4k-16k
same 768 --nrfiles=3 --rw=randread --size=3m --file_service_type=roundrobin:4
same 512 --nrfiles=2 --rw=randread --size=2m --random_distribution=zipf:1.1
same 256 --nrfiles=4 --rw=read --size=1m --file_service_type=random
same 386 --nrfiles=3 --rw=read --size=3m --file_service_type=sequential --bsrange=4k-12k
same 512 --nrfiles=2 --rw=randrw --size=2m
same 246 --nrfiles=2 --rw=randrw --size=2m --bsrange=4k-16k
same 512 --nrfiles=2 --rw=randread --size=2m --file_service_type=sequential
same 768 --nrfiles=3 --rw=randread --size=3m --file_service_type=random:3
# The job's passes: its bytes, not a file's share (sequential service
# without a map stays on the first file), loops and io_size over all files.
same 512 --nrfiles=2 --rw=randread --norandommap --file_service_type=sequential --size=2m
same 1024 --nrfiles=2 --rw=randread --size=2m --loops=2
same 768 --nrfiles=2 --rw=read --size=2m --io_size=3m
same 100 --nrfiles=2 --rw=randread --size=2m --number_ios=100

# Time based: each tool's first I/Os (as many as both issued in 1 s at 2000
# IOPS) are the same; 64k holds 16 blocks, so the map fills and starts over
# many times.
prefix() {
  seq_of fio f "$@"
  seq_of "$BB" b "$@"
  local n m k
  n=$(wc -l <f.seq); m=$(wc -l <b.seq)
  k=$((n < m ? n : m))
  [ "$k" -ge 100 ] || fail "too few I/Os to compare (fio $n, block-bench $m): $*"
  cmp -s <(head -n "$k" f.seq) <(head -n "$k" b.seq) ||
    fail "time based: the first $k I/Os differ: $*"
  echo "same first $k I/Os: $*"
}
prefix --rw=randread --size=64k --time_based --runtime=1 --rate_iops=2000
prefix --rw=randwrite:3 --size=64k --time_based --runtime=1 --rate_iops=2000 --loops=3
# lfsr: each pass after the first is the first turned by one (fio's reset).
prefix --rw=randread --size=100k --time_based --runtime=1 --rate_iops=2000 --random_generator=lfsr

# Time based with verify: size= bytes written, then read back, by turns
# until the runtime (fio's do_io breaks "to run verification").
ENGINE="--ioengine=libaio --iodepth=4 --filename=$T/data"
prefix --rw=randwrite --size=64k --verify=crc32c --time_based --runtime=1 --rate_iops=2000
ENGINE="--ioengine=null"
# The runtime ending the writes skips the verify phase, as fio's.
reads_of() {
  "$@" --name=j --ioengine=libaio --filename="$T/data" --rw=randwrite --size=16m --runtime=1 \
    --rate_iops=300 --verify=crc32c --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["read"]["total_ios"], j["write"]["total_ios"] > 100)'
}
[ "$(reads_of fio)" = "0 True" ] || fail "fio: $(reads_of fio)"
[ "$(reads_of "$BB")" = "0 True" ] || fail "block-bench read back after its runtime: $(reads_of "$BB")"
echo "runtime=1 ends the writes: no verify phase in either"
# exitall reaches a job that is reading back between its loops: it ends
# there (block-bench used to finish all 50 loops).
"$BB" --name=a --ioengine=libaio --filename="$T/data" --rw=randwrite --size=16m --loops=50 \
  --verify=crc32c --name=b --ioengine=null --rw=read --size=1m --rate_iops=100 --exitall \
  --output-format=json 2>/dev/null >ex.json || fail "exitall: exit $?"
w=$(python3 -c 'import json; print(json.load(open("ex.json"))["jobs"][0]["write"]["total_ios"])')
[ "$w" -lt $((50 * 4096)) ] || fail "exitall did not end the verifying job: $w writes"
echo "exitall ended the looping verify job after $w writes"

# fio warns that blockalign turns its random map off, and --warnings-fatal
# makes that fatal, as fio's.
"$BB" --name=j --ioengine=null --rw=randread --size=1m --blockalign=512 >/dev/null 2>w.err ||
  fail "blockalign=512: $(cat w.err)"
grep -q "Any use of blockalign= turns off randommap" w.err || fail "no blockalign warning: $(cat w.err)"
"$BB" --name=j --ioengine=null --rw=randread --size=1m --blockalign=512 --warnings-fatal >w.out 2>w.err &&
  fail "--warnings-fatal ran a job fio refuses"
grep -q "Any use of blockalign= turns off randommap" w.err || fail "no warning before exit: $(cat w.err)"
grep -q "j:" w.out && fail "--warnings-fatal still ran the job: $(cat w.out)"
"$BB" --name=j --ioengine=null --rw=randread --size=1m --blockalign=4k --warnings-fatal >/dev/null 2>w.err ||
  fail "blockalign=bs warned: $(cat w.err)"

# The comparison can fail: another seed is another sequence.
seq_of "$BB" b --rw=randrw --bs=4k --size=4m
seq_of "$BB" c --rw=randrw --bs=4k --size=4m --randseed=7
cmp -s b.seq c.seq && fail "randseed=7 gave the default seed's sequence"
# Without randrepeat or randseed each run draws its own seed, as fio.
seq_of "$BB" c --rw=randrw --bs=4k --size=4m --randrepeat=0
seq_of "$BB" d --rw=randrw --bs=4k --size=4m --randrepeat=0
cmp -s c.seq d.seq && fail "randrepeat=0 repeated a sequence"

# The second job of a file is fio's thread 2: its seeds differ from the
# first's.  stonewall runs them one after the other, each with its iolog.
cat >two.fio <<'JOB'
[global]
ioengine=null
size=8m
bs=4k
rw=randrw
rwmixread=70
stonewall
[a]
write_iolog=TOOL_a.log
[b]
write_iolog=TOOL_b.log
rw=randread
[c]
write_iolog=TOOL_c.log
rwmixread=25
JOB
for tool in fio bb; do
  sed "s/TOOL/$tool/" two.fio >"$tool.fio"
  rm -f "${tool}"_?.log
done
fio fio.fio >/dev/null 2>fio.err || fail "fio: $(cat fio.err)"
"$BB" bb.fio >/dev/null 2>bb.err || fail "block-bench: $(cat bb.err)"
for j in a b c; do
  awk '$3=="read"||$3=="write"{print $3,$4,$5}' "fio_$j.log" >f.seq
  awk '$3=="read"||$3=="write"{print $3,$4,$5}' "bb_$j.log" >b.seq
  [ "$(wc -l <f.seq)" = 2048 ] || fail "job $j: fio did $(wc -l <f.seq) I/Os"
  cmp -s f.seq b.seq || fail "job $j (thread $j of a job file) differs from fio's"
done
echo "same I/O in the three jobs of a file"

# numjobs: each clone's read and write counts (clone i is fio's thread i).
counts() {
  "$@" --name=j --ioengine=null --rw=randrw --bs=16k --size=8m --numjobs=3 \
    --rwmixread=30 --output-format=json 2>/dev/null |
    python3 -c 'import json,sys
print(" ".join("%d/%d" % (x["read"]["total_ios"], x["write"]["total_ios"]) for x in json.load(sys.stdin)["jobs"]))'
}
want=$(counts fio) || fail "fio numjobs=3"
got=$(counts "$BB") || fail "block-bench numjobs=3"
[ "$(echo "$want" | wc -w)" = 3 ] || fail "fio's clones: $want"
[ "$got" = "$want" ] || fail "clones' read/write counts: block-bench $got, fio $want"
echo "numjobs=3 clones read/write: $got"
echo PASS

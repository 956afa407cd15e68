#!/bin/bash
# fio's mem=, mem_align= and hugepage-size= on the binary, beside fio 3.33,
# through strace: the I/O buffers (the buffer address of every pread64,
# strace -e raw=pread64) lie in the memory the mem= type names (the
# shmget/shmat segment, the anonymous or the file mapping and its MAP_
# flags), and start mem_align bytes past a page boundary, as fio's do
# (mem=malloc without mem_align or direct=1: 16 bytes past a 64-byte
# boundary, where glibc's malloc puts fio's);
# mem_align that breaks O_DIRECT's alignment, the huge types without free
# huge pages, mmaphuge on a file outside hugetlbfs and mem=cudamalloc are
# errors naming the option, as fio's runs of them fail.
set -u
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
fail() { echo "FAIL: $*"; exit 1; }
require_tool strace strace
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/mem.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cd "$T" || fail cd
head -c $((256 << 10)) /dev/urandom >data

# traced NAME TOOL ARGS...: runs fio (TOOL=fio) or block-bench under strace;
# the trace in NAME.trace, the output in NAME.out.  fio reads with pread64,
# whose buffer address strace prints raw; block-bench's psync reads with
# preadv, whose buffer strace prints as the bytes read, and as its address
# only when the call fails: TOOL=bb-addr fails the first preadv (EIO,
# injected by strace, so the job ends there with an error) to show it.
traced() {
  local name=$1 tool=$2; shift 2
  local cmd=("$BB") inject=()
  [ "$tool" = fio ] && cmd=(fio --output=/dev/null)
  [ "$tool" = bb-addr ] && inject=(-e inject=preadv:error=EIO:when=1)
  # LeakSanitizer cannot run under ptrace (the suite's other runs check leaks).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -o "$name.trace" -e trace=mmap,shmget,shmat,openat,pread64,preadv -e raw=pread64 \
    "${inject[@]}" "${cmd[@]}" "$@" >"$name.out" 2>&1
}

# buffers TRACE: one line "CALL FLAGS MODS" for the I/O buffers of the run:
# CALL is the call whose memory holds every pread64 buffer (shmget, or mmap
# with FLAGS its flags: MAP_PRIVATE|MAP_ANONYMOUS..., MAP_SHARED, and
# "file" for a mapping of a file), MODS the sorted distinct buffer
# addresses modulo 4096.  CALL is "heap" when no call holds them all (fio's
# mem=malloc of a small area: malloc(3) from the heap).
buffers() {
  python3 - "$1" <<'PY'
import re, sys
areas, bufs, data_fds = [], [], set()
for line in open(sys.argv[1]):
    line = re.sub(r"^\[pid +\d+\] |^\d+ +", "", line.strip())
    m = re.match(r"mmap\((?:NULL|0x0|0), (\d+), [^,]+, ([^,]+), (-?\d+), [^)]*\) += (0x[0-9a-f]+)", line)
    if m:
        flags = m.group(2).replace("|MAP_NORESERVE", "")
        if m.group(3) != "-1": flags += " file"
        areas.append((int(m.group(4), 16), int(m.group(1)), "mmap " + flags))
        continue
    m = re.match(r"shmget\(IPC_PRIVATE, (\d+), ([^)]*)\) += (\d+)", line)
    if m:
        size, sflags = int(m.group(1)), m.group(2)
        continue
    m = re.match(r"shmat\(\d+, NULL, 0\) += (0x[0-9a-f]+)", line)
    if m:
        areas.append((int(m.group(1), 16), size, "shmget " + ("SHM_HUGETLB" if "SHM_HUGETLB" in sflags else "-")))
        continue
    m = re.match(r'openat\(AT_FDCWD, "[^"]*data", [^)]*\) += (\d+)', line)
    if m:
        data_fds.add(int(m.group(1)))
        continue
    m = re.match(r"pread64\((0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+),", line)
    if m and int(m.group(1), 16) in data_fds:
        bufs.append((int(m.group(2), 16), int(m.group(3), 16)))
    m = re.match(r"preadv\((\d+), \[\{iov_base=(0x[0-9a-f]+), iov_len=(\d+)\}\].*INJECTED", line)
    if m and int(m.group(1)) in data_fds:
        bufs.append((int(m.group(2), 16), int(m.group(3))))
if not bufs: print("none (no read of the data file)"); sys.exit()
for base, size, what in reversed(areas):
    if all(base <= b and b + n <= base + size for b, n in bufs):
        print(what, " ".join(str(x) for x in sorted({b % 4096 for b, _ in bufs})))
        sys.exit()
# Not in a mapping the trace shows: the heap (fio's malloc of a small area).
print("heap", " ".join(str(x) for x in sorted({b % 4096 for b, _ in bufs})))
PY
}

# 1. Each type and alignment: the buffers in the memory of that type, at
# fio's offset; the call and its flags as fio's.  (fio reads with pread64,
# block-bench's psync with preadv: the buffer address of either.)
n=0
for mem in malloc shm mmap mmapshared "mmap:$T/bufs" "mmapshared:$T/bufs"; do
  for align in 0 256 512; do
    n=$((n + 1))
    args="--name=m --filename=$T/data --size=256k --bs=4k --rw=randread --ioengine=psync --mem=$mem --mem_align=$align"
    # fio maps a FILE for mmapshared without extending it: its I/Os into
    # an empty file fail with EFAULT.  A file that exists is kept.
    rm -f bufs
    [[ $mem == mmapshared:* ]] && head -c $((1 << 20)) /dev/zero >bufs
    traced fio$n fio $args || fail "fio $args: $(cat fio$n.out)"
    rm -f bufs
    [[ $mem == mmapshared:* ]] && head -c $((1 << 20)) /dev/zero >bufs
    traced bb$n bb $args || fail "block-bench $args: $(cat bb$n.out)"
    traced bba$n bb-addr $args
    want=$(buffers fio$n.trace)
    got=$(buffers bba$n.trace)
    echo "mem=$mem mem_align=$align: fio '$want', block-bench '$got'"
    # malloc: fio calls malloc(3), block-bench maps private anonymous memory
    # (what glibc's malloc does for areas of 128 KiB and more); the
    # buffers' offset is the same.
    # Without mem_align and direct=1 fio does not align its buffers at all:
    # they lie where malloc put the area (16-byte aligned: on the heap here
    # at 0x...610 or 0x...620, as the environment's size moves the heap; 16
    # past a page in an mmapped chunk), and block-bench's 16 past a page.
    if [ $mem = malloc ] && [ $align = 0 ]; then
      [ $(( ${want##* } % 16 )) = 0 ] || fail "fio's malloc buffers: '$want'"
      [ "${got##* }" = 16 ] || fail "mem=malloc: block-bench '$got', fio '$want'"
      continue
    elif [ $mem = malloc ]; then
      [ "${got##* }" = "${want##* }" ] || fail "mem=malloc mem_align=$align: block-bench '$got', fio '$want'"
    else
      [ "$got" = "$want" ] || fail "mem=$mem mem_align=$align: block-bench's buffers '$got', fio's '$want'"
    fi
    case $mem in
      shm) [[ "$got" == "shmget - $align" ]] || fail "mem=shm: $got" ;;
      mmap:*) [[ "$got" == "mmap MAP_PRIVATE file $align" ]] || fail "mem=$mem: $got" ;;
      mmapshared:*) [[ "$got" == "mmap MAP_SHARED file $align" ]] || fail "mem=$mem: $got" ;;
      *) [[ "$got" == "mmap MAP_PRIVATE|MAP_ANONYMOUS $align" ]] || fail "mem=$mem: $got" ;;
    esac
    # The file the run created for its buffers is gone again, as fio's; one
    # that existed is kept, at its size.
    if [[ $mem == mmapshared:* ]]; then
      [ "$(stat -c %s bufs)" = $((1 << 20)) ] || fail "mem=$mem: bufs not kept as it was"
    else
      [ -e "$T/bufs" ] && fail "mem=$mem left $T/bufs behind"
    fi
  done
done

# 2. mem_align that O_DIRECT's alignment does not divide: fio's I/Os fail
# with EINVAL; block-bench refuses the job, naming the option.
args="--name=d --filename=$T/data --size=256k --bs=4k --rw=read --ioengine=libaio --direct=1 --mem_align=1"
fio --output=fd.out $args >/dev/null 2>&1
grep -q "err=22" fd.out || fail "fio's own mem_align=1 direct=1: $(cat fd.out)"
"$BB" $args >bd.out 2>&1 && fail "block-bench mem_align=1 direct=1 succeeded: $(cat bd.out)"
grep -q "mem_align=1" bd.out && grep -q "O_DIRECT" bd.out ||
  fail "mem_align=1 direct=1 message: $(cat bd.out)"
"$BB" ${args/--mem_align=1/--mem_align=512} >bd512.out 2>&1 || fail "mem_align=512 direct=1: $(cat bd512.out)"

# 3. Huge pages: without free ones both fail (fio's hint about
# nr_hugepages); with some, the segment and the mapping are huge.
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
for mem in shmhuge mmaphuge; do
  args="--name=h --filename=$T/data --size=64k --bs=4k --rw=read --mem=$mem"
  traced fh fio $args; frc=$?
  traced bh bb $args; brc=$?
  if [ "${free:-0}" = 0 ]; then
    [ $frc != 0 ] || fail "fio's own mem=$mem without huge pages succeeded"
    [ $brc != 0 ] || fail "block-bench mem=$mem without huge pages succeeded"
    grep -q "mem=$mem" bh.out && grep -q "nr_hugepages" bh.out ||
      fail "mem=$mem without huge pages: $(cat bh.out)"
  else
    [ $brc = 0 ] || fail "mem=$mem with $free free huge pages: $(cat bh.out)"
    case $mem in
      shmhuge) grep -q "SHM_HUGETLB" bh.trace || fail "mem=shmhuge: no SHM_HUGETLB shmget" ;;
      mmaphuge) grep -q "MAP_HUGETLB" bh.trace || fail "mem=mmaphuge: no MAP_HUGETLB mmap" ;;
    esac
  fi
done

# 4. mmaphuge on a file outside hugetlbfs (fio maps it and its I/Os fail
# with EFAULT); block-bench says why, and leaves no file.
"$BB" --name=f --filename=$T/data --size=64k --mem=mmaphuge:$T/notuge >bf.out 2>&1 &&
  fail "mmaphuge on $T accepted"
grep -q "not on a hugetlbfs mount" bf.out || fail "mmaphuge message: $(cat bf.out)"
[ -e "$T/notuge" ] && fail "mmaphuge left $T/notuge behind"

# 5. cudamalloc: refused while parsing, as an error naming the option.
"$BB" --name=c --filename=$T/data --size=64k --mem=cudamalloc --parse-only >bc.out 2>&1 &&
  fail "mem=cudamalloc accepted"
grep -q "mem" bc.out && grep -q "rdma" bc.out || fail "cudamalloc message: $(cat bc.out)"
echo PASS

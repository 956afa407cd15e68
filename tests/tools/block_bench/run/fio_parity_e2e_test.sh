#!/usr/bin/env bash
# fio parity: real-world style job files (fio_parity/*.fio) run UNCHANGED by
# fio 3.33 and by block-bench, on the same targets, and their JSON reports
# compared job by job and direction by direction.
#
# The job files name their targets through environment variables that both
# tools expand: ${ENGINE}, ${DIRECT}, ${FILE} (a file in the run's own
# directory) and ${DIR} (that directory).  Targets:
#   null    fio's null engine vs block-bench's ioengine=null (no data: no verify)
#   psync   a regular file in $TEST_TMPDIR, buffered pread/pwrite
#   libaio  the same with direct=1 (skipped, with a note, where the test
#           directory has no O_DIRECT, e.g. tmpfs)
#   zram    libaio direct=1 on a zram device, one per tool (hot-added here,
#           removed at the end; files naming ${FILE} only): a block device
#           that completes inside io_submit.  Without a writable
#           /sys/class/zram-control it is skipped with a note, and fails
#           under BLK_TEST_NO_SKIP (CI).
# Each file's first line says which targets it runs on and what is checked:
#   # fio-parity: targets=null,psync,libaio check=KIND[,KIND] [refuses=OPT] [ios=N]
# Checks (always: both exit 0, the same job names in the same order):
#   exact   size bounded: per job and direction, total_ios and io_bytes
#           exactly fio's
#   rate    rate capped: block-bench's IOPS within 10 % of fio's per
#           direction (and exact too unless time based)
#   time    time based: the IOPS are printed (block-bench is expected to be
#           faster), not compared
#   verify  exact, no verify error in either (job error 0; block-bench: every
#           block read back verified, none bad)
#   stats   the same statistics kept: slat/clat/lat N zero or not alike, the
#           same percentile keys
#   steady  both report the steady state (time based; attained printed)
#   gap     a known disagreement (see the file): both run, both printed,
#           nothing asserted
#   refused a known refusal: block-bench must still refuse the job naming
#           the option (fio is not run); when it no longer does, move the
#           job to the compared set
#   alone   fio is not run (fio 3.33 hangs on the job or cannot run it;
#           the file says how and why): block-bench must exit 0 with no job error and issue,
#           per job over its directions, the header's ios=N I/Os (what a
#           size-bounded job of size/bs issues)
# The runs of one file go at the same time, every target and both tools
# (each in its own directory; for rate-capped files fio's runs first, then
# block-bench's); a mismatch names the file, target, job, field and both
# values, and all mismatches are listed at the end.
set -euo pipefail
BB="$TEST_SRCDIR/$TEST_WORKSPACE/tools/block_bench/block_bench"
CORPUS="$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/run/fio_parity"
T="$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/tools/block_bench/require_fio.sh"
require_fio
shopt -s nullglob
jobs=("$CORPUS"/*.fio)
(( ${#jobs[@]} >= 20 )) || fail "corpus: only ${#jobs[@]} job files in $CORPUS"

# O_DIRECT on the test directory (not on tmpfs): the libaio direct=1 target.
have_direct=1
if ! dd if=/dev/zero of=odirect.probe bs=4096 count=1 oflag=direct 2> /dev/null; then
  have_direct=0
  echo "NOTE: no O_DIRECT on $T ($(stat -f -c %T "$T")): the libaio direct=1 target is skipped, psync only"
fi
rm -f odirect.probe

# Two zram devices (one per tool) when a job file asks for the zram target.
zram_bb="" zram_fio="" zram_ids=()
zram_remove() {
  local id
  for id in "${zram_ids[@]}"; do
    for _ in $(seq 200); do echo "$id" > /sys/class/zram-control/hot_remove 2> /dev/null && break; sleep 0.01; done
  done
}
trap zram_remove EXIT
zram_add() {  # zram_add VAR: sets VAR to a new /dev/zramN, or fails
  local id
  id=$(cat /sys/class/zram-control/hot_add) || return 1
  [[ $id =~ ^[0-9]+$ && $id != 0 ]] || return 1
  zram_ids+=("$id")  # here, not in a subshell: zram_remove must see it
  echo 256M > "/sys/block/zram$id/disksize" || return 1
  for _ in $(seq 200); do [[ -b /dev/zram$id ]] && break; sleep 0.01; done
  [[ -b /dev/zram$id ]] || return 1
  printf -v "$1" '%s' "/dev/zram$id"
}
if grep -q '^# fio-parity: targets=[^ ]*zram' "${jobs[@]}"; then
  [[ -e /sys/class/zram-control ]] || modprobe zram 2> /dev/null || true
  if [[ -w /sys/class/zram-control/hot_add ]] && zram_add zram_bb && zram_add zram_fio; then
    echo "zram target: block-bench on $zram_bb, fio on $zram_fio"
  else
    zram_bb=""
    [[ -n ${BLK_TEST_NO_SKIP:-} ]] && fail "no zram device (needs root, the zram module and a writable /sys: the test is tagged local)"
    echo "NOTE: SKIPPED the zram target: no writable /sys/class/zram-control (root, the zram module, no sandbox)"
  fi
fi

cat > compare.py <<'PY'
import json, re, sys

DIRS = ("read", "write", "trim")
failures = []
job = target = ""


def bad(what):
    failures.append("%s [%s] %s" % (job, target, what))


def tail(path):
    try:
        return " | ".join(open(path).read().strip().splitlines()[-3:])
    except OSError:
        return ""


def load(d, tool):
    # fio writes its notes ("fio: Any use of blockalign= turns off
    # randommap") into the output file before the JSON.
    text = open("%s/%s/out.json" % (d, tool)).read()
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON in %s/%s/out.json" % (d, tool))
    return json.JSONDecoder().raw_decode(text[start:])[0]


def compare(checks, refuses, d, bb_rc, fio_rc):
    checks = set(checks.split(","))
    if "refused" in checks:
        refused(refuses, d, bb_rc)
    elif "alone" in checks:
        alone(int(refuses), d, bb_rc)
    else:
        compared(checks, d, bb_rc, fio_rc)


def alone(ios, d, bb_rc):
    if bb_rc != "0":
        bad("block-bench exit status %s: %s" % (bb_rc, tail(d + "/bb/stderr")))
        return
    for b in load(d, "bb")["jobs"]:
        total = sum(b[x]["total_ios"] for x in DIRS)
        if b["error"] != 0 or total != ios:
            bad("job %s: error %d, %d I/Os (want 0 and %d)" % (b["jobname"], b["error"], total, ios))
        print("%-26s %-6s %-20s %d I/Os, iops %.0f (block-bench alone: fio is not run, see the file)"
              % (job, target, b["jobname"], total, sum(b[x]["iops"] for x in DIRS)))


def refused(refuses, d, bb_rc):
    err = open(d + "/bb/stderr").read()
    if bb_rc == "0":
        bad("block-bench now accepts the job (refused %s before): compare it with fio instead" % refuses)
    elif not re.search(r"\b%s\b" % re.escape(refuses), err):
        bad("block-bench refused it but not naming %s: %s" % (refuses, tail(d + "/bb/stderr")))
    else:
        print("%-26s %-6s refused, as known: %s" % (job, target, re.sub(r"^.*?\.fio:", "", err.strip().splitlines()[0])[:160]))


def compared(checks, d, bb_rc, fio_rc):
    gap = "gap" in checks
    if bb_rc != "0" or fio_rc != "0":
        msg = "exit status: block-bench %s, fio %s (block-bench: %s; fio: %s)" % (
            bb_rc, fio_rc, tail(d + "/bb/stderr"), tail(d + "/fio/stderr"))
        if gap:
            print("%-26s %-6s GAP %s" % (job, target, msg))
        else:
            bad(msg)
        return
    bb, fio = load(d, "bb"), load(d, "fio")
    bn, fn = [j["jobname"] for j in bb["jobs"]], [j["jobname"] for j in fio["jobs"]]
    if bn != fn:
        bad("jobs: block-bench %s, fio %s" % (bn, fn))
        return

    for b, f in zip(bb["jobs"], fio["jobs"]):
        name = b["jobname"]
        where = "job %s" % name
        if f["error"] != 0 or b["error"] != 0:
            bad("%s: error: block-bench %d, fio %d" % (where, b["error"], f["error"]))
        used = [x for x in DIRS if b[x]["total_ios"] or f[x]["total_ios"]]
        if not used:
            bad("%s: no I/O reported by either tool" % where)
        for x in used:
            br, fr = b[x], f[x]
            same = (br["total_ios"], br["io_bytes"]) == (fr["total_ios"], fr["io_bytes"])
            ratio = br["iops"] / fr["iops"] - 1 if fr["iops"] else float("inf")
            notes = []
            if gap:
                notes.append("GAP (known, not asserted): " + ("now agrees" if same else "differs"))
            if ("exact" in checks or "verify" in checks or ("rate" in checks and "time" not in checks)):
                for field in ("total_ios", "io_bytes"):
                    if br[field] != fr[field]:
                        bad("%s %s: %s: block-bench %d, fio %d" % (where, x, field, br[field], fr[field]))
            if "rate" in checks:
                if abs(ratio) > 0.10:
                    bad("%s %s: iops: block-bench %.1f, fio %.1f (%+.1f %%, more than 10 %%)"
                        % (where, x, br["iops"], fr["iops"], 100 * ratio))
                notes.append("rate %+.1f %%" % (100 * ratio))
            if "stats" in checks:
                for kind in ("slat_ns", "clat_ns", "lat_ns"):
                    bk, fk = br[kind], fr[kind]
                    if (bk["N"] > 0) != (fk["N"] > 0):
                        bad("%s %s: %s N: block-bench %d, fio %d (kept by one only)" % (where, x, kind, bk["N"], fk["N"]))
                    bp, fp = sorted(bk.get("percentile", {})), sorted(fk.get("percentile", {}))
                    if bp != fp:
                        bad("%s %s: %s percentiles: block-bench %s, fio %s" % (where, x, kind, bp, fp))
                notes.append("stats N slat/clat/lat %d/%d/%d" % (br["slat_ns"]["N"], br["clat_ns"]["N"], br["lat_ns"]["N"]))
            print("%-26s %-6s %-20s %-5s ios %d/%d bytes %d/%d iops %.0f/%.0f (block-bench/fio) %s"
                  % (job, target, name, x, br["total_ios"], fr["total_ios"], br["io_bytes"], fr["io_bytes"],
                     br["iops"], fr["iops"], "; ".join(notes)))
        if "verify" in checks:
            k = b.get("blkstack", {})
            reads = b["read"]["total_ios"]
            if k.get("verify_errors") != 0 or k.get("verify_not_verified") != 0 or k.get("verified") != reads:
                bad("%s: block-bench verify: verified %s of %d reads, verify_errors %s, not verified %s"
                    % (where, k.get("verified"), reads, k.get("verify_errors"), k.get("verify_not_verified")))
            print("%-26s %-6s %-20s verify: %s blocks checked, %s bad (block-bench); fio error %d"
                  % (job, target, name, k.get("verified"), k.get("verify_errors"), f["error"]))
        if "steady" in checks:
            bs, fs = b.get("steadystate"), f.get("steadystate")
            if not bs or not fs:
                bad("%s: steadystate: block-bench %s, fio %s" % (where, bs, fs))
            else:
                print("%-26s %-6s %-20s steady state attained %s/%s, after %d/%d ms (block-bench/fio)"
                      % (job, target, name, bs.get("attained"), fs.get("attained"), b["job_runtime"], f["job_runtime"]))
        bsync, fsync = b.get("sync", {}).get("lat_ns", {}).get("N", 0), f.get("sync", {}).get("lat_ns", {}).get("N", 0)
        if bsync or fsync:
            print("%-26s %-6s %-20s syncs %d/%d (block-bench/fio; not asserted)" % (job, target, name, bsync, fsync))


for line in open(sys.argv[1]):
    job, target, checks, refuses, d, bb_rc, fio_rc = line.rstrip("\n").split("\t")
    compare(checks, refuses, d, bb_rc, fio_rc)
with open("failures.txt", "w") as f:
    for line in failures:
        f.write(line + "\n")
PY

# The header of a job file: targets, checks, option refused.
header() {  # header FILE KEY
  sed -n 's/^# fio-parity: //p' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# run JOBFILE TARGET TOOL: in the background, in its own directory.
run() {
  local job=$1 target=$2 tool=$3 engine direct cmd d
  case $target in
    null) engine=null direct=0 ;;
    psync) engine=psync direct=0 ;;
    libaio) engine=libaio direct=1 ;;
    zram) engine=libaio direct=1 ;;
    *) fail "$(basename "$job"): unknown target $target" ;;
  esac
  d="$T/$(basename "$job" .fio)/$target/$tool"
  rm -rf "$d" && mkdir -p "$d"
  if [[ $tool == bb ]]; then cmd=("$BB"); else cmd=(fio); fi
  local file="$d/data"
  if [[ $target == zram ]]; then
    if [[ $tool == bb ]]; then file=$zram_bb; else file=$zram_fio; fi
  fi
  # fio 3.33 can hang (io_submit_mode=offload), so every run has a limit.
  (cd "$d" && exec env ENGINE=$engine DIRECT=$direct FILE="$file" DIR="$d" timeout -s KILL 45 \
    "${cmd[@]}" --output-format=json --output="$d/out.json" "$job" > "$d/stdout" 2> "$d/stderr") &
  pids+=("$!:$target:$tool")
}

# Wait for the runs of `pids`, their exit statuses into `rc`.
reap() {
  local r
  for r in "${pids[@]}"; do
    if wait "${r%%:*}"; then rc[${r#*:}]=0; else rc[${r#*:}]=$?; fi
  done
  pids=()
}

start=$SECONDS
: > runs.tsv
for job in "${jobs[@]}"; do
  name=$(basename "$job")
  targets=$(header "$job" targets)
  checks=$(header "$job" check)
  refuses=$(header "$job" refuses)
  [[ ",$checks," == *,alone,* ]] && refuses=$(header "$job" ios)
  [[ -n $targets && -n $checks ]] || fail "$name: no '# fio-parity: targets=... check=...' line"
  tools=(fio bb)
  if [[ ",$checks," == *,refused,* || ",$checks," == *,alone,* ]]; then tools=(bb); fi
  used=()
  for target in ${targets//,/ }; do
    if [[ $target == libaio ]] && (( !have_direct )); then echo "$name: libaio skipped (no O_DIRECT)"; continue; fi
    if [[ $target == zram && -z $zram_bb ]]; then echo "$name: zram skipped (no device)"; continue; fi
    used+=("$target")
  done
  declare -A rc=()
  pids=()
  t0=$EPOCHREALTIME
  # Every target at once; both tools at once, except for rate-capped jobs:
  # there fio's runs first, then block-bench's, so that fio's start-up (a
  # quarter of a CPU second: clock calibration) does not delay the other
  # tool's paced I/O.
  for tool in "${tools[@]}"; do
    for target in "${used[@]}"; do run "$job" "$target" "$tool"; done
    if [[ ",$checks," == *,rate,* ]]; then reap; fi
  done
  reap
  awk -v n="$name" -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%-26s ran in %.1f s\n", n, b - a }'
  for target in "${used[@]}"; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$target" "$checks" "$refuses" \
      "$T/${name%.fio}/$target" "${rc[$target:bb]}" "${rc[$target:fio]:-}" >> runs.tsv
  done
  unset rc
done
echo "ran ${#jobs[@]} job files in $((SECONDS - start)) s"
python3 compare.py runs.tsv || fail "compare.py failed"
if [[ -s failures.txt ]]; then
  echo "FAIL: block-bench and fio disagree:" >&2
  cat failures.txt >&2
  exit 1
fi
echo PASS

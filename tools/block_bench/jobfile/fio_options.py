#!/usr/bin/env python3
"""Writes docs/fio-options.md: every job option of fio's HOWTO and what
block-bench does with it, as block-bench itself reports (--cmdhelp).

  fio_options.py HOWTO.rst[.gz] BLOCK_BENCH > docs/fio-options.md

HOWTO is fio's own option reference (Debian's fio package installs
/usr/share/doc/fio/HOWTO.rst.gz).  Each `.. option::` entry of the job-file
sections (not the command-line flags, not the act/tiobench profile options)
is one row: its names (aliases included), the engines it belongs to, and
block-bench's answer: supported (with block-bench's help text), refused
(with the reason), or, for an option of an engine block-bench does not
have, refused because of the engine.  An option block-bench neither
supports nor refuses by name is "unknown": block-bench rejects it as an
unknown option.  tests/tools/block_bench/jobfile:fio_options_doc_test regenerates
the file and fails when it differs.
"""
import gzip
import re
import subprocess
import sys

# ioengine= values block-bench runs (run/target.h).
ENGINES = {"psync", "sync", "pvsync", "pvsync2", "libaio", "io_uring", "null", "rbd"}
PROFILE_SECTIONS = ("Act profile options", "Tiobench profile options")


def read_howto(path):
    data = open(path, "rb").read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8").split("\n")


def options(lines):
    """(section, [names], [engines]) for each job option, in HOWTO order."""
    section = ""
    out = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line and re.fullmatch(r"[~\-=^]{3,}", nxt) and not line.startswith(".."):
            section = line.strip()
        m = re.match(r"\.\. option:: (.*)$", line)
        if not m or m.group(1).startswith("-") or section in PROFILE_SECTIONS:
            continue
        spec, _, tags = m.group(1).partition(" : ")
        if spec.endswith(" :"):
            spec = spec[:-2]
        names = [n.strip().split("=")[0] for n in re.split(r",\s+(?=[A-Za-z_])", spec)]
        engines = re.findall(r"\[([^\]]+)\]", tags)
        engines = [e.strip() for group in engines for e in group.split(",")]
        out.append((section, [n for n in names if n], engines))
    return out


def main():
    howto, bb = sys.argv[1], sys.argv[2]
    opts = options(read_howto(howto))
    names = [n for _, ns, _ in opts for n in ns]
    answer = subprocess.run([bb, "--cmdhelp=" + ",".join(names)], capture_output=True, text=True)
    status = {}
    for line in answer.stdout.splitlines():
        name, _, rest = line.partition(": ")
        status[name] = rest
    missing = [n for n in names if n not in status]
    if missing:
        sys.exit("block-bench --cmdhelp did not answer for: " + ", ".join(missing))

    rows, counts = [], {"supported": 0, "refused": 0, "unknown": 0}
    section = None
    for sec, ns, engines in opts:
        if sec != section:
            rows.append("| **%s** | | |" % sec)
            section = sec
        first = status[ns[0]]
        if first.startswith("supported"):
            kind = "supported"
            note = first.split(": ", 1)[1] if ": " in first else ""
        elif first.startswith("refused"):
            kind = "refused"
            note = first.split(": ", 1)[1]
        elif engines and not ENGINES.intersection(engines):
            kind = "refused"
            note = "an option of fio's %s engine%s; block-bench has no such engine" % (
                ", ".join(engines), "s" if len(engines) > 1 else "")
        else:
            kind = "unknown"
            note = "not recognized: block-bench rejects it as an unknown option"
        counts[kind] += 1
        label = "`" + "`, `".join(ns) + "`"
        if engines:
            label += " (%s)" % ", ".join(engines)
        rows.append("| %s | %s | %s |" % (label, kind, note.replace("|", "\\|")))

    print("# fio's job options in block-bench")
    print()
    print("Every job option of fio 3.33's own reference (`HOWTO.rst`, section by")
    print("section) and what block-bench does with it, as block-bench itself reports")
    print("it (`block-bench --cmdhelp=NAME`).  *supported*: the option works, with the")
    print("meaning in the note (block-bench's help text); *refused*: a job that sets it")
    print("is an error naming the file, line, option and this reason; *unknown*: an")
    print("error too, as an unknown option.  Generated, do not edit: after changing")
    print("options, run")
    print()
    print("```sh")
    print("python3 tools/block_bench/jobfile/fio_options.py /usr/share/doc/fio/HOWTO.rst.gz \\")
    print("    bazel-bin/tools/block_bench/block_bench > docs/fio-options.md")
    print("```")
    print()
    print("(`tests/tools/block_bench/jobfile:fio_options_doc_test` fails when this file is out")
    print("of date.)  %d options: %d supported, %d refused, %d unknown."
          % (sum(counts.values()), counts["supported"], counts["refused"], counts["unknown"]))
    print()
    print("| fio option (engines) | block-bench | note |")
    print("|---|---|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()

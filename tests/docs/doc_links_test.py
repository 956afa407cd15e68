#!/usr/bin/env python3
"""Every document README.md and docs/*.md name exists.

A `docs/NAME.md` anywhere in README.md or docs/*.md, and a relative
Markdown link `](NAME.md)` inside docs/, must name a file of docs/ (a
renamed document leaves no stale reference behind).  Fails naming
FILE:LINE of each reference to a missing document.
"""
import glob
import os
import re
import sys


def main():
    root = os.environ.get("TEST_SRCDIR", "")
    ws = os.environ.get("TEST_WORKSPACE", "")
    base = os.path.join(root, ws) if root else "."
    docs = sorted(glob.glob(os.path.join(base, "docs", "*.md")))
    present = {os.path.basename(p) for p in docs}
    problems, refs = [], 0
    for path in [os.path.join(base, "README.md")] + docs:
        rel = os.path.relpath(path, base)
        in_docs = os.path.dirname(rel) == "docs"
        for i, line in enumerate(open(path, encoding="utf-8").read().split("\n")):
            names = re.findall(r"\bdocs/([A-Za-z0-9_.-]+\.md)\b", line)
            if in_docs:
                names += re.findall(r"\]\(([A-Za-z0-9_.-]+\.md)(?:#[^)]*)?\)", line)
            for name in names:
                refs += 1
                if name not in present:
                    problems.append("%s:%d: docs/%s does not exist" % (rel, i + 1, name))
    if len(docs) < 2:
        problems.append("no docs found under %s" % base)
    for p in problems:
        print("FAIL: " + p)
    print("%d documents, %d references to documents checked" % (len(docs) + 1, refs))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

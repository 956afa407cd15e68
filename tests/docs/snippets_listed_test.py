#!/usr/bin/env python3
"""Every C or C++ code block in README.md and docs/*.md is a tested snippet.

A ```c or ```cpp block must be preceded by `<!-- snippet: NAME -->`, and
NAME must have a doc_snippet_test in tests/docs/BUILD (which compiles and
runs it).  Fails naming FILE:LINE of each block that escapes.
"""
import glob
import os
import re
import sys


def main():
    root = os.environ.get("TEST_SRCDIR", "")
    ws = os.environ.get("TEST_WORKSPACE", "")
    base = os.path.join(root, ws) if root else "."
    build = open(os.path.join(base, "tests/docs/BUILD"), encoding="utf-8").read()
    declared = set(re.findall(r'doc_snippet_test\(\s*name\s*=\s*"([^"]+)"', build))
    docs = [os.path.join(base, "README.md")] + sorted(glob.glob(os.path.join(base, "docs", "*.md")))
    problems, seen = [], set()
    for path in docs:
        lines = open(path, encoding="utf-8").read().split("\n")
        in_block = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                if not in_block and line.strip() in ("```c", "```cpp", "```c++", "```C"):
                    prev = lines[i - 1].strip() if i else ""
                    m = re.match(r"<!-- snippet: (\S+) -->$", prev)
                    rel = os.path.relpath(path, base)
                    if not m:
                        problems.append("%s:%d: %s block without a snippet marker" % (rel, i + 1, line.strip()))
                    elif m.group(1) not in declared:
                        problems.append("%s:%d: snippet %s has no doc_snippet_test in tests/docs/BUILD"
                                        % (rel, i, m.group(1)))
                    else:
                        seen.add(m.group(1))
                in_block = not in_block
    for name in sorted(declared - seen):
        problems.append("tests/docs/BUILD: snippet %s is not in any document" % name)
    if len(docs) < 2:
        problems.append("no docs found under %s" % base)
    for p in problems:
        print("FAIL: " + p)
    print("%d documents, %d snippets tested" % (len(docs), len(seen)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

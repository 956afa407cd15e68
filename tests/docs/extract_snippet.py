#!/usr/bin/env python3
"""Extracts one code block from a Markdown file, for the docs snippet tests.

  extract_snippet.py DOC.md NAME OUT

The block is the fenced one right after the line `<!-- snippet: NAME -->`.
OUT starts with a comment naming the source: `//` for C and C++ files, `#`
for anything else (shell, CMakeLists.txt, meson.build).
Exits 1 (naming the file) when the marker or its block is missing.
"""
import sys


def main():
    doc, name, out = sys.argv[1:4]
    lines = open(doc, encoding="utf-8").read().split("\n")
    marker = "<!-- snippet: %s -->" % name
    for i, line in enumerate(lines):
        if line.strip() != marker:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            sys.exit("%s:%d: snippet %s is not followed by a code block" % (doc, i + 1, name))
        body = []
        for line2 in lines[i + 2:]:
            if line2.startswith("```"):
                c_like = out.endswith((".c", ".cc", ".cpp", ".h"))
                with open(out, "w", encoding="utf-8") as f:
                    f.write(("// " if c_like else "# ") + "Extracted from %s (snippet %s) by tests/docs.\n" % (doc, name))
                    f.write("\n".join(body) + "\n")
                return
            body.append(line2)
        sys.exit("%s:%d: snippet %s has no closing fence" % (doc, i + 2, name))
    sys.exit("%s: no snippet named %s" % (doc, name))


if __name__ == "__main__":
    main()

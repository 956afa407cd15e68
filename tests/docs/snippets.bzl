"""doc_snippet_test: compiles (and runs) a code block of a Markdown file."""

load("@rules_cc//cc:defs.bzl", "cc_test")

def doc_snippet_test(name, doc, lang, deps):
    """The block after `<!-- snippet: NAME -->` in `doc`, as a test.

    lang: "cpp" or "c".  The block is a whole program: it is compiled,
    linked with `deps` and run, and must exit 0 (a hang is a test timeout).
    """
    src = name + (".c" if lang == "c" else ".cc")
    native.genrule(
        name = name + "_src",
        srcs = [doc],
        outs = [src],
        tools = ["//tests/docs:extract_snippet.py"],
        cmd = "python3 $(location //tests/docs:extract_snippet.py) $(location %s) %s $@" % (doc, name),
    )
    cc_test(
        name = name,
        size = "small",
        srcs = [src],
        deps = deps,
    )

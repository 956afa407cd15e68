"""blk_fuzz_test: one libFuzzer target that is also a Bazel test.

With --config=fuzz (clang-16, --define=fuzzing=1) the binary links
libFuzzer's main and the test fuzzes for FUZZ_SECONDS (default 45) starting
from the seed corpus; without it the binary links fuzz_main.cc and the test
replays the seed corpus, so the seeds are regression tests in every config.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def blk_fuzz_test(name, srcs, corpus, deps = []):
    """Defines NAME_bin (the fuzz binary) and NAME (the test).

    Args:
      name: test name.
      srcs: sources defining LLVMFuzzerTestOneInput.
      corpus: a directory (label of its files via glob) of seed inputs.
      deps: libraries under test.
    """
    cc_binary(
        name = name + "_bin",
        testonly = True,
        srcs = srcs,
        deps = deps + select({
            "//tests/fuzz:fuzzing": [],
            "//conditions:default": ["//tests/fuzz:fuzz_main"],
        }),
        linkopts = select({
            "//tests/fuzz:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.filegroup(
        name = name + "_corpus",
        testonly = True,
        srcs = native.glob([corpus + "/**"]),
    )
    native.sh_test(
        name = name,
        size = "medium",
        srcs = ["//tests/fuzz:run_fuzz.sh"],
        args = select({
            "//tests/fuzz:fuzzing": ["fuzz"],
            "//conditions:default": ["replay"],
        }) + [
            "$(rootpath :%s_bin)" % name,
            native.package_name() + "/" + corpus,
        ],
        data = [
            ":" + name + "_bin",
            ":" + name + "_corpus",
        ],
        tags = ["fuzz"],
    )

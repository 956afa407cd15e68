"""docs/architecture.md's map is checked against the tree.

Every file or folder the document names in backticks exists (paths under
run/ are tools/block_bench/run/), and every header of block-bench's runner
(tools/block_bench/run/ and its features/) and every folder of
tools/block_bench/ is named in it, so that the map stays complete as parts
are added.
"""
import os
import re
import sys
import unittest

# The document's runfile is a link into the source tree: the tree is read
# there (the runfiles hold only what the test declares).
DOC = os.path.realpath(os.path.join(os.environ.get("TEST_SRCDIR", ""),
                                    os.environ.get("TEST_WORKSPACE", ""), "docs", "architecture.md"))
ROOT = os.path.dirname(os.path.dirname(DOC))
PATH = re.compile(r"`([A-Za-z0-9_./-]+(?:\.(?:h|cc|md)|/))`")


def resolve(p):
    if p.startswith("run/"):
        return "tools/block_bench/" + p
    return p


class ArchitectureMapTest(unittest.TestCase):
    def setUp(self):
        with open(DOC) as f:
            self.text = f.read()
        # NAME stands for a driver's name in "Writing a driver".
        self.named = {resolve(m) for m in PATH.findall(self.text) if "/" in m and "NAME" not in m}

    def test_named_paths_exist(self):
        missing = sorted(p for p in self.named if not os.path.exists(os.path.join(ROOT, p)))
        self.assertEqual(missing, [], "named in docs/architecture.md but not in the tree")

    def test_every_runner_header_is_named(self):
        unnamed = []
        for d in ("tools/block_bench/run", "tools/block_bench/run/features"):
            for f in sorted(os.listdir(os.path.join(ROOT, d))):
                if not f.endswith(".h"):
                    continue
                if d + "/" + f not in self.named:
                    unnamed.append(d + "/" + f)
        # Headers that are not a concern of their own (helpers of the ones
        # named) are listed here with the reason.
        helpers = {
            "tools/block_bench/run/disk_stats.h",    # fio's Disk stats, read by the runner
            "tools/block_bench/run/resources.h",     # limits checked before a segment
            "tools/block_bench/run/result.h",        # the results' data
            "tools/block_bench/run/result_codec.h",  # results between MPI ranks
            "tools/block_bench/run/rng.h",           # random numbers
            "tools/block_bench/run/source.h",        # IoUnit and the IoSource interface
            "tools/block_bench/run/stop.h",          # SIGINT's stop request
            "tools/block_bench/run/sync.h",          # MPI segment start
        }
        self.assertEqual([u for u in unnamed if u not in helpers], [],
                         "runner headers missing from docs/architecture.md")

    def test_every_block_bench_folder_is_named(self):
        base = os.path.join(ROOT, "tools/block_bench")
        for f in sorted(os.listdir(base)):
            if os.path.isdir(os.path.join(base, f)) and f != "examples":
                self.assertIn("tools/block_bench/" + f + "/", self.named, f)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])

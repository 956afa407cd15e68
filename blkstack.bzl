"""blkstack_library: a cc_library that is part of libblkstack."""

load("@rules_cc//cc:defs.bzl", "cc_library")

def blkstack_library(name, visibility = None, **kwargs):
    """A cc_library of libblkstack, reachable as `name`.

    The library itself is named blkstack_<name>, so its archive is
    libblkstack_<name>.a: no archive of ours has the name of a system
    library (Ceph's librbd.a, glibc's libutil.a).  It is alwayslink so that
    //:libblkstack.so keeps every object (nothing registers itself: the
    driver table is one list in block/registry.cc).
    """
    cc_library(
        name = "blkstack_" + name,
        alwayslink = True,
        visibility = visibility,
        **kwargs
    )
    native.alias(
        name = name,
        actual = ":blkstack_" + name,
        visibility = visibility,
    )

# The installed library's version (tools/install).  SOVERSION is the soname
# suffix: it changes when the C API's ABI does.
BLKSTACK_VERSION = "0.1.0"
BLKSTACK_SOVERSION = "0"

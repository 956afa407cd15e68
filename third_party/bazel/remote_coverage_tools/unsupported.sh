#!/bin/sh
echo "blkstack: 'bazel coverage' is not supported: remote_coverage_tools is an offline stub (third_party/bazel/README.md)." >&2
exit 1

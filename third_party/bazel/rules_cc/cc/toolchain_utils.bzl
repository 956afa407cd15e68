"""Offline stand-in for rules_cc's find_cpp_toolchain."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", _find_cpp_toolchain = "find_cpp_toolchain")

find_cpp_toolchain = _find_cpp_toolchain

#!/usr/bin/env bash
# Installs libblkstack into PREFIX: shared and static library, public
# headers, pkg-config and CMake files (docs/embedding.md, "Install, then
# link").  Installs missing Debian packages first (scripts/setup.sh).
#
#   bash scripts/install.sh /usr/local
#   bash scripts/install.sh "$HOME/.local"
set -euo pipefail

if [[ $# -ne 1 || -z "$1" || "$1" == -* ]]; then
  echo "usage: scripts/install.sh PREFIX" >&2
  exit 2
fi
prefix="$1"
[[ "$prefix" == /* ]] || prefix="$PWD/$prefix"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
# -c opt comes from .bazelrc; --force_pic as scripts/test.sh builds, so the
# two share their outputs (the library's objects are PIC either way).
bazel run --force_pic --noshow_progress //:install -- "$prefix"

#!/usr/bin/env bash
# Installs libblkstack into PREFIX (run through scripts/install.sh PREFIX, or
# bazel run //:install -- PREFIX):
#
#   PREFIX/lib/libblkstack.so.VERSION, .so.SOVERSION and .so links
#   PREFIX/lib/libblkstack.a
#   PREFIX/include/blkstack/{blkstack.h,block,util}   the public headers, as <blkstack/...>
#   PREFIX/lib/pkgconfig/blkstack.pc (C++: C++20 flags), blkstack-c.pc (C)
#   PREFIX/lib/cmake/blkstack/blkstackConfig.cmake, blkstackConfigVersion.cmake
#
# Files already there are replaced; nothing else in PREFIX is touched.
# Exit status 0 on success, 2 on a usage error, 1 when a copy fails.
set -euo pipefail

usage() { echo "usage: install PREFIX" >&2; exit 2; }
[[ $# -eq 1 && -n "$1" && "$1" != -* ]] || usage
prefix="$1"
# A relative PREFIX is relative to where the user ran the command.
if [[ "$prefix" != /* ]]; then
  prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
fi

# The files to install are runfiles of this program.
if [[ -n "${TEST_SRCDIR:-}" && -d "$TEST_SRCDIR/blkstack/tools/install" ]]; then
  cd "$TEST_SRCDIR/blkstack"
elif [[ -d "$0.runfiles/blkstack" ]]; then
  cd "$0.runfiles/blkstack"
fi
src=tools/install
[[ -f "$src/libblkstack.so" && -f "$src/version.env" ]] || {
  echo "install: cannot find the built library next to $0 (run it with bazel run)" >&2
  exit 1
}
# shellcheck source=/dev/null
source "$src/version.env"  # VERSION, SOVERSION

mkdir -p "$prefix/lib/pkgconfig" "$prefix/lib/cmake/blkstack" "$prefix/include/blkstack"
prefix="$(cd "$prefix" && pwd)"

install -m 0755 "$src/libblkstack.so" "$prefix/lib/libblkstack.so.$VERSION"
ln -sfn "libblkstack.so.$VERSION" "$prefix/lib/libblkstack.so.$SOVERSION"
ln -sfn "libblkstack.so.$SOVERSION" "$prefix/lib/libblkstack.so"
install -m 0644 "$src/libblkstack.a" "$prefix/lib/libblkstack.a"

while read -r h; do
  dest="$h"
  [[ "$h" == block/capi/blkstack.h ]] && dest=blkstack.h  # <blkstack/blkstack.h>
  install -D -m 0644 "$h" "$prefix/include/blkstack/$dest"
done < "$src/public_headers.txt"

subst() {
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$VERSION|g" -e "s|@SOVERSION@|$SOVERSION|g" "$1" > "$2"
  chmod 0644 "$2"
}
subst "$src/blkstack.pc.in" "$prefix/lib/pkgconfig/blkstack.pc"
subst "$src/blkstack-c.pc.in" "$prefix/lib/pkgconfig/blkstack-c.pc"
subst "$src/blkstackConfig.cmake.in" "$prefix/lib/cmake/blkstack/blkstackConfig.cmake"
subst "$src/blkstackConfigVersion.cmake.in" "$prefix/lib/cmake/blkstack/blkstackConfigVersion.cmake"

echo "installed blkstack $VERSION into $prefix"
echo "  pkg-config: export PKG_CONFIG_PATH=$prefix/lib/pkgconfig"
echo "  C:     cc -std=c11 app.c \$(pkg-config --cflags --libs blkstack-c)"
echo "  C++:   c++ app.cc \$(pkg-config --cflags --libs blkstack)"
echo "  CMake: cmake -DCMAKE_PREFIX_PATH=$prefix ...   find_package(blkstack) -> blkstack::blkstack"
case "$prefix" in
  /usr|/usr/local) command -v ldconfig >/dev/null && [[ $EUID -eq 0 ]] && ldconfig || true ;;
  *) echo "  run:   $prefix/lib is not on the loader's path: add -Wl,-rpath,$prefix/lib or set LD_LIBRARY_PATH" ;;
esac

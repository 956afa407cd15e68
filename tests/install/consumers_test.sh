#!/usr/bin/env bash
# Installs libblkstack into a temporary prefix (tools/install/install, what
# scripts/install.sh runs) and checks it as a project outside Bazel would:
#   1. the layout: versioned SONAME and links, the archive, pkg-config and
#      CMake files;
#   2. the exported symbols: every blkstack_* function of the C header and
#      nothing outside blkstack_* and namespace blk;
#   3. each installed header compiles on its own against the prefix only
#      (so the list is closed under #include), blkstack.h also as C11;
#   4. the consumers of docs/embedding.md ("Install, then link"): the C
#      example with the pkg-config command, the README's C++ example with the
#      CMake project (shared and static), the C example with the Meson
#      project; each runs against the null driver and a temporary file, and
#      the C program links no Ceph library.
# Under --config=asan the library is instrumented: the consumers are then
# compiled with the same sanitizers (a `cc`/`c++` first in PATH adds them).
# No `cmd | grep -q` or `| head` below: under pipefail the writer's SIGPIPE
# would turn a match into a failure.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

R="$TEST_SRCDIR/$TEST_WORKSPACE"
T="$TEST_TMPDIR"
export HOME="$T"
prefix="$T/prefix"
snip() { python3 "$R/tests/docs/extract_snippet.py" "$R/$1" "$2" "$3"; }

step "install into $prefix"
"$R/tools/install/install" "$prefix"
lib="$prefix/lib"
source "$R/tools/install/version.env"
[[ -f "$lib/libblkstack.so.$VERSION" ]] || fail "no $lib/libblkstack.so.$VERSION"
[[ "$(readlink "$lib/libblkstack.so.$SOVERSION")" == "libblkstack.so.$VERSION" ]] || fail "bad soname link"
[[ "$(readlink "$lib/libblkstack.so")" == "libblkstack.so.$SOVERSION" ]] || fail "bad dev link"
[[ -f "$lib/libblkstack.a" ]] || fail "no libblkstack.a"
soname="$(readelf -d "$lib/libblkstack.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[[ "$soname" == "libblkstack.so.$SOVERSION" ]] || fail "SONAME is '$soname'"
if readelf -d "$lib/libblkstack.so" | grep -Ei 'NEEDED.*(rbd|rados|ceph|event)'; then
  fail "libblkstack.so needs Ceph or libevent (above)"
fi
export PKG_CONFIG_PATH="$lib/pkgconfig"
[[ "$(pkg-config --modversion blkstack)" == "$VERSION" ]] || fail "pkg-config --modversion"

step "exported symbols"
nm -D --defined-only "$lib/libblkstack.so" | awk 'NF == 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' | c++filt > "$T/exports"
n=$(wc -l < "$T/exports")
((n > 100)) || fail "only $n symbols exported"
grep -v -e '^blkstack_' -e 'blk::' "$T/exports" > "$T/foreign" || true
if [[ -s "$T/foreign" ]]; then
  head -5 "$T/foreign"
  fail "symbols outside blkstack_* and blk:: are exported (above)"
fi
if grep -qi nlohmann "$T/exports"; then fail "nlohmann symbols exported"; fi
declared=$(grep -o '\bblkstack_[a-z_0-9]*(' "$prefix/include/blkstack/block/capi/blkstack.h" | tr -d '(' | sort -u)
[[ -n "$declared" ]] || fail "no function found in blkstack.h"
for f in $declared; do
  grep -qx "$f" "$T/exports" || fail "$f is declared in blkstack.h but not exported"
done
echo "$n symbols exported; all $(echo "$declared" | wc -l) C API functions among them"

# Sanitizer flags matching the library's build (none in the optimised run).
# An instrumented library is linked with the sanitizer runtime of the
# compiler that built it (clang-16 for --config=asan, see .bazelrc).
san=""
cc=/usr/bin/cc cxx=/usr/bin/c++
c_link_extra=""  # appended when cc links
nm -D "$lib/libblkstack.so" > "$T/dynsyms"
if grep -q ' U __asan_init' "$T/dynsyms"; then
  san="-fsanitize=address,undefined"
  if readelf -p .comment "$lib/libblkstack.so" > "$T/comment" && grep -q 'clang version' "$T/comment"; then
    # The library's UBSan checks (vptr) need the C++ part of clang's static
    # runtime, which a C program links only when asked, with libstdc++.
    cc=/usr/bin/clang-16 cxx=/usr/bin/clang++-16
    san="$san -fsanitize-link-c++-runtime"
    c_link_extra="-lstdc++"
  fi
fi
mkdir -p "$T/bin"
cat > "$T/bin/cc" <<EOF
#!/bin/sh
for a in "\$@"; do case "\$a" in -c|-E|-S|-M|-MM|-fsyntax-only) exec $cc $san "\$@";; esac; done
exec $cc $san "\$@" $c_link_extra
EOF
printf '#!/bin/sh\nexec %s %s "$@"\n' "$cxx" "$san" > "$T/bin/c++"
chmod +x "$T/bin/cc" "$T/bin/c++"
export PATH="$T/bin:$PATH"
export CC="$T/bin/cc" CXX="$T/bin/c++"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1"
echo "consumers are compiled with: $cc and $cxx ${san:-(no extra flags)}"

step "each public header compiles on its own"
count=0
while read -r h; do
  echo "#include \"$h\"" | c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror \
    -I"$prefix/include/blkstack" -x c++ - || fail "$h does not compile on its own"
  count=$((count + 1))
done < <(cd "$prefix/include/blkstack" && find . -name '*.h' | sed 's|^\./||' | sort)
echo '#include "block/capi/blkstack.h"' | cc -std=c11 -fsyntax-only -Wall -Wextra -Werror \
  -I"$prefix/include/blkstack" -x c - || fail "blkstack.h does not compile as C11"
((count >= 15)) || fail "only $count headers installed"
echo "$count headers"

# A temporary file for the file driver.
img="$T/disk.img"
truncate -s 16M "$img"
run_both() {  # runs a consumer against the null driver and the file
  local prog="$1"
  "$prog" | tee "$T/out" && grep -q '^read: 0$' "$T/out" || fail "$prog (null driver)"
  "$prog" "driver=file,filename=$img" | tee "$T/out" && grep -q '^read: 0$' "$T/out" ||
    fail "$prog (file $img)"
  "$prog" "driver=nosuch" && fail "$prog accepted an unknown driver"
  return 0
}

step "C with pkg-config"
mkdir -p "$T/c" && cd "$T/c"
snip docs/embedding.md embedding_c app.c
snip docs/embedding.md install_pkgconfig build.sh
sh -ex build.sh
[[ -x app ]] || fail "the pkg-config command built no ./app"
# (ldd's output in a file: `ldd | grep -q` under pipefail fails when grep
# exits before ldd has written everything.)
ldd ./app > ldd.txt
if grep -Ei 'rbd|rados|ceph' ldd.txt; then fail "the C consumer links Ceph (above)"; fi
grep -qF "$lib/libblkstack.so.$SOVERSION" ldd.txt || { cat ldd.txt; fail "app does not use the installed library"; }
run_both ./app

step "C++ with CMake (shared and static)"
mkdir -p "$T/cmake" && cd "$T/cmake"
snip README.md readme_coroutine app.cc
snip docs/embedding.md install_cmake CMakeLists.txt
cat >> CMakeLists.txt <<'CMAKE'
# Added by tests/install: the same program against libblkstack.a.
add_executable(app_static app.cc)
target_link_libraries(app_static PRIVATE blkstack::blkstack_static)
CMAKE
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$lib" > cmake.log ||
  { cat cmake.log; fail "cmake configure"; }
cmake --build build || fail "cmake build"
readelf -d build/app_static > static.dyn
if grep -q 'libblkstack' static.dyn; then fail "app_static needs libblkstack.so"; fi
run_both build/app
run_both build/app_static

step "C with Meson"
mkdir -p "$T/meson" && cd "$T/meson"
snip docs/embedding.md embedding_c app.c
snip docs/embedding.md install_meson meson.build
LDFLAGS="-Wl,-rpath,$lib" meson setup build > meson.log || { cat meson.log; fail "meson setup"; }
meson compile -C build || fail "meson compile"
run_both build/app

echo "PASS: installed into $prefix; pkg-config, CMake and Meson consumers built and ran"

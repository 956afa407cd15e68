#!/usr/bin/env bash
# Installs libblkstack into a temporary prefix (tools/install/install, what
# scripts/install.sh runs) and checks it as a project outside Bazel would:
#   1. the layout: versioned SONAME and links, the archive, pkg-config and
#      CMake files;
#   2. the exported symbols: every blkstack_* function of the C header and
#      nothing outside blkstack_* and namespace blk;
#   3. each installed header compiles on its own against the prefix only
#      (so the list is closed under #include), blkstack.h also as C11;
#   4. the consumers of docs/embedding.md ("Install, then link"), every
#      command as the doc prints it, from PREFIX=$HOME/.local (not /usr): the
#      C example with the blkstack-c pkg-config line (C11, -Werror -Wall
#      -Wextra -pedantic), the README's C++ example with the blkstack
#      pkg-config line and with the CMake project (shared and static), the
#      C example with the Meson project; each runs against the null driver
#      and a temporary file, and the C program links no Ceph library;
#   5. the version macros of blkstack.h are the installed version, and the
#      CMake package warns about the GCC 12 pitfall when the compiler is
#      GCC 12.
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
# The prefix of docs/embedding.md's commands ($HOME/.local).
prefix="$HOME/.local"
unset PKG_CONFIG_PATH
snip() { python3 "$R/tests/docs/extract_snippet.py" "$R/$1" "$2" "$3"; }
# Runs a command snippet of the doc as typed in a shell where the doc's
# install_env lines ran first (PREFIX, PKG_CONFIG_PATH).
run_doc() { cat "$T/env.sh" "$1" > "$1.run" && sh -ex "$1.run"; }

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
# The doc's PKG_CONFIG_PATH line, as typed (PREFIX="$HOME/.local").
snip docs/embedding.md install_env "$T/env.sh"
# shellcheck source=/dev/null
source "$T/env.sh"
[[ "$PREFIX" == "$prefix" && "$PKG_CONFIG_PATH" == "$lib/pkgconfig" ]] ||
  fail "docs/embedding.md's install_env does not point at $prefix"
[[ "$(pkg-config --modversion blkstack)" == "$VERSION" ]] || fail "pkg-config --modversion"
[[ "$(pkg-config --modversion blkstack-c)" == "$VERSION" ]] || fail "pkg-config --modversion blkstack-c"
pkg-config --cflags blkstack > "$T/cflags" && grep -q -- '-std=c++20' "$T/cflags" ||
  fail "blkstack.pc carries no -std=c++20: $(cat "$T/cflags")"
pkg-config --cflags blkstack-c > "$T/cflags_c"
if grep -q -- '-std=' "$T/cflags_c"; then fail "blkstack-c.pc sets a standard: $(cat "$T/cflags_c")"; fi

step "version macros"
hdr="$prefix/include/blkstack/blkstack.h"
macro() { sed -n "s/^#define $1 \(.*\)/\1/p" "$hdr"; }
[[ "$(macro BLKSTACK_VERSION_STRING)" == "\"$VERSION\"" ]] ||
  fail "BLKSTACK_VERSION_STRING is $(macro BLKSTACK_VERSION_STRING), the library $VERSION"
[[ "$(macro BLKSTACK_VERSION_MAJOR).$(macro BLKSTACK_VERSION_MINOR).$(macro BLKSTACK_VERSION_PATCH)" == "$VERSION" ]] ||
  fail "BLKSTACK_VERSION_MAJOR/MINOR/PATCH are not $VERSION"
[[ "$(macro BLKSTACK_SOVERSION)" == "$SOVERSION" ]] || fail "BLKSTACK_SOVERSION is not $SOVERSION"

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
declared=$(grep -o '\bblkstack_[a-z_0-9]*(' "$prefix/include/blkstack/blkstack.h" | tr -d '(' | sort -u)
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
  echo "#include <blkstack/$h>" | c++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror \
    -I"$prefix/include" -x c++ - || fail "$h does not compile on its own"
  count=$((count + 1))
done < <(cd "$prefix/include/blkstack" && find . -name '*.h' | sed 's|^\./||' | sort)
echo '#include <blkstack/blkstack.h>' | cc -std=c11 -fsyntax-only -Wall -Wextra -pedantic -Werror \
  -I"$prefix/include" -x c - || fail "blkstack.h does not compile as C11"
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

step "C with pkg-config (blkstack-c, strict C11)"
mkdir -p "$T/c" && cd "$T/c"
snip docs/embedding.md embedding_c app.c
snip docs/embedding.md install_pkgconfig build.sh
grep -q -- '-std=c11 -Werror -Wall -Wextra -pedantic' build.sh || fail "the doc's C line is not strict C11"
run_doc build.sh
[[ -x app ]] || fail "the pkg-config command built no ./app"
# (ldd's output in a file: `ldd | grep -q` under pipefail fails when grep
# exits before ldd has written everything.)
ldd ./app > ldd.txt
if grep -Ei 'rbd|rados|ceph' ldd.txt; then fail "the C consumer links Ceph (above)"; fi
grep -qF "$lib/libblkstack.so.$SOVERSION" ldd.txt || { cat ldd.txt; fail "app does not use the installed library"; }
run_both ./app

step "C++ with pkg-config (blkstack)"
mkdir -p "$T/cxx" && cd "$T/cxx"
snip README.md readme_coroutine app.cc
snip docs/embedding.md install_pkgconfig_cxx build.sh
run_doc build.sh
[[ -x app ]] || fail "the pkg-config command built no ./app"
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
snip docs/embedding.md install_cmake_build build.sh
run_doc build.sh > cmake.log 2>&1 || { cat cmake.log; fail "the doc's cmake commands"; }
cat cmake.log
# The GCC 12 pitfall is reported at configure time (docs/embedding.md,
# "Compilers"); other compilers configure without the warning.
"$cxx" -E -dM -x c++ /dev/null > cxx.macros
"$cxx" --version > cxx.version
if grep -q '^#define __GNUC__ 12$' cxx.macros && ! grep -q '__clang__' cxx.macros; then
  grep -q 'miscompiles a co_await' cmake.log || fail "no GCC 12 warning from the CMake package"
  cmake -S . -B build-quiet -DCMAKE_PREFIX_PATH="$prefix" -DBLKSTACK_GCC12_PITFALL_OK=ON > quiet.log 2>&1 ||
    { cat quiet.log; fail "cmake with BLKSTACK_GCC12_PITFALL_OK"; }
  if grep -q 'miscompiles' quiet.log; then fail "BLKSTACK_GCC12_PITFALL_OK=ON did not silence it"; fi
else
  if grep -q 'miscompiles' cmake.log; then fail "GCC 12 warning for $(head -1 cxx.version)"; fi
fi
readelf -d build/app_static > static.dyn
if grep -q 'libblkstack' static.dyn; then fail "app_static needs libblkstack.so"; fi
run_both build/app
run_both build/app_static

step "C with Meson"
mkdir -p "$T/meson" && cd "$T/meson"
snip docs/embedding.md embedding_c app.c
snip docs/embedding.md install_meson meson.build
snip docs/embedding.md install_meson_build build.sh
run_doc build.sh > meson.log 2>&1 || { cat meson.log; fail "the doc's meson commands"; }
run_both build/app

step "a consumer with its own util/task.h and block/ on the include path"
mkdir -p "$T/own/util" "$T/own/block" && cd "$T/own"
printf "#error its own util/task.h, not blkstack's\n" > util/task.h
printf "#error its own block/registry.h\n" > block/registry.h
snip README.md readme_coroutine app.cc
c++ -I. app.cc -o app $(pkg-config --cflags --libs blkstack) -Wl,-rpath,"$lib" || fail "its own util/task.h broke the build"
run_both ./app
# No installed header is reachable as "block/..." or "util/..." (from a
# folder without such folders of its own).
cd "$T"
for old in block/registry.h util/task.h block/capi/blkstack.h; do
  if echo "#include \"$old\"" | c++ $(pkg-config --cflags blkstack) -fsyntax-only -x c++ - 2>/dev/null; then
    fail "$old is reachable with blkstack.pc's flags"
  fi
done
[[ ! -e "$prefix/include/block" && ! -e "$prefix/include/util" ]] || fail "headers installed outside include/blkstack"

echo "PASS: installed into $prefix; pkg-config, CMake and Meson consumers built and ran"

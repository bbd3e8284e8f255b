#!/usr/bin/env bash
# Builds LLVM's OpenMP runtime (libomp) with OMPD support and full debug info from Debian's
# llvm-toolchain-<VERSION> source package, and installs it under $JOMPD_CACHE/llvm-<VERSION>.
# Installs libomp.so (with DWARF and the OMPD breadcrumb symbols that Debian's stripped libomp lacks),
# LLVM's reference libompd.so and, where the version ships it, the reference gdb plugin.
#
# usage: scripts/build-runtime.sh [VERSION]     (default 19; 14, 15, 16 and 19 are known to work)
# Reuses an existing install; set JOMPD_REBUILD=1 to force a rebuild.
set -euo pipefail
. "$(dirname "$0")/common.sh"

version="${1:-19}"
prefix="$JOMPD_CACHE/llvm-$version"
stamp="$prefix/.jompd-complete"
if [ -f "$stamp" ] && [ -z "${JOMPD_REBUILD:-}" ]; then
  echo "$prefix"
  exit 0
fi
command -v clang-19 >/dev/null || jompd_die "clang-19 is missing: run scripts/setup-system.sh first"

work="$JOMPD_CACHE/src/llvm-$version"
mkdir -p "$work"
cd "$work"
if ! ls llvm-toolchain-"$version"_*.orig.tar.* >/dev/null 2>&1; then
  jompd_log "downloading Debian source package llvm-toolchain-$version (large, once)"
  apt-get source --download-only "llvm-toolchain-$version" >/dev/null 2>download.log \
    || { cat download.log >&2; jompd_die "apt-get source llvm-toolchain-$version failed (deb-src entries missing? run scripts/setup-system.sh)"; }
fi
tarball=$(ls llvm-toolchain-"$version"_*.orig.tar.* | grep -v -- '-[a-z]*\.tar' | head -1)
src="$work/src"
if [ ! -f "$src/openmp/CMakeLists.txt" ]; then
  jompd_log "extracting openmp/ and the cmake modules from $tarball"
  rm -rf "$src" && mkdir -p "$src"
  tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards --no-anchored \
    '*/openmp/*' '*/cmake/*' '*/llvm/cmake/*' '*/third-party/*' '*/llvm/utils/lit/*' 2>/dev/null || true
  [ -f "$src/openmp/CMakeLists.txt" ] || jompd_die "no openmp/ in $tarball"
fi

jompd_log "building libomp $version with OMPD support (about a minute)"
build="$work/build"
rm -rf "$build" "$prefix"
cmake -S "$src/openmp" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DLIBOMP_OMPD_SUPPORT=ON -DLIBOMP_OMPT_SUPPORT=ON \
  -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_INSTALL_ALIASES=OFF \
  -DOPENMP_ENABLE_WERROR=OFF -DOPENMP_STANDALONE_BUILD=ON \
  >"$work/cmake.log" 2>&1 || { tail -30 "$work/cmake.log" >&2; jompd_die "cmake failed for llvm-$version (log: $work/cmake.log)"; }
ninja -C "$build" install >"$work/ninja.log" 2>&1 \
  || { tail -30 "$work/ninja.log" >&2; jompd_die "build failed for llvm-$version (log: $work/ninja.log)"; }

libdir=$(dirname "$(find "$prefix" -name 'libomp.so' | head -1)")
[ -n "$libdir" ] || jompd_die "no libomp.so installed under $prefix"
[ -f "$libdir/libompd.so" ] || jompd_die "no libompd.so installed under $prefix (OMPD support off?)"
nm "$libdir/libomp.so" | grep ompd_dll_locations >/dev/null || jompd_die "libomp.so has no OMPD breadcrumbs"
# One stable place for the library directory, whatever cmake called it (lib, lib64, lib/x86_64-...).
[ "$libdir" = "$prefix/lib" ] || ln -sfn "$libdir" "$prefix/lib"
touch "$stamp"
jompd_log "libomp $version installed in $prefix"
echo "$prefix"

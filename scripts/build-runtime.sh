#!/usr/bin/env bash
# Builds LLVM's OpenMP runtime (libomp) with OMPD support and full debug info from the upstream tarball of
# Debian's llvm-toolchain-<VERSION> source package, and installs it under $JOMPD_CACHE/llvm-<VERSION>.
# Installs libomp.so (with DWARF and the OMPD breadcrumb symbols that Debian's stripped libomp lacks),
# LLVM's reference libompd.so and, where the version ships it, the reference gdb plugin.
# Which release, from which suite and how it builds: the version's line in the supported-runtimes list.
#
# usage: scripts/build-runtime.sh [VERSION]     (default: the list's default; any major the list holds)
# Reuses an existing install; set JOMPD_REBUILD=1 to force a rebuild.
set -euo pipefail
. "$(dirname "$0")/common.sh"

version="${1:-$(jompd_runtimes default)}"
source_spec="$(jompd_runtime_field "$version" source)"
suite="$(jompd_runtime_field "$version" suite)"
upstream="$(jompd_runtime_field "$version" upstream)"
build_kind="$(jompd_runtime_field "$version" build)"
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
tarball="llvm-toolchain-${version}_$upstream.orig.tar.xz"
if [ ! -f "$tarball" ]; then
  # Only the upstream tarball: the mirror serves no .dsc or Debian tarball of sid's llvm-toolchain-NN.
  jompd_log "downloading the upstream tarball of $source_spec from $suite (about 200 MB, once)"
  if [ "$suite" = bookworm ]; then
    apt-get source --tar-only --download-only "$source_spec" >/dev/null 2>download.log
  else
    [ -f "$JOMPD_APT_DIR/sources.list" ] || jompd_die "no deb-src list for $suite: run scripts/setup-system.sh"
    jompd_apt_sid apt-get source --tar-only --download-only "$source_spec" >/dev/null 2>download.log
  fi || { cat download.log >&2; jompd_die "apt-get source $source_spec failed (deb-src entries missing? run scripts/setup-system.sh)"; }
  [ -f "$tarball" ] || jompd_die "apt-get source $source_spec gave no $tarball: $(ls)"
fi
src="$work/src"
if [ ! -f "$src/openmp/CMakeLists.txt" ]; then
  jompd_log "extracting openmp/ and the cmake modules from $tarball"
  rm -rf "$src" && mkdir -p "$src"
  # runtimes/ and llvm/'s version files: LLVM 23 builds openmp only through runtimes/
  tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards --no-anchored \
    '*/openmp/*' '*/cmake/*' '*/llvm/cmake/*' '*/third-party/*' '*/llvm/utils/lit/*' '*/runtimes/*' \
    '*/llvm/include/llvm/Config/*' '*/llvm/utils/llvm-lit/*' 2>/dev/null || true
  [ -f "$src/openmp/CMakeLists.txt" ] || jompd_die "no openmp/ in $tarball"
fi

jompd_log "building libomp $upstream with OMPD support ($build_kind build, a minute or two)"
build="$work/build"
rm -rf "$build" "$prefix"
common_flags=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
  -DCMAKE_INSTALL_PREFIX="$prefix"
  -DLIBOMP_OMPD_SUPPORT=ON -DLIBOMP_OMPT_SUPPORT=ON
  -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_INSTALL_ALIASES=OFF -DOPENMP_ENABLE_WERROR=OFF)
if [ "$build_kind" = runtimes ]; then
  # LLVM 23 removed openmp's standalone build: openmp is one of the runtimes of runtimes/.
  [ -f "$src/runtimes/CMakeLists.txt" ] || jompd_die "no runtimes/ in $tarball"
  cmake -S "$src/runtimes" -B "$build" "${common_flags[@]}" -DLLVM_ENABLE_RUNTIMES=openmp \
    -DLLVM_INCLUDE_TESTS=OFF -DLLVM_INCLUDE_DOCS=OFF >"$work/cmake.log" 2>&1
else
  cmake -S "$src/openmp" -B "$build" "${common_flags[@]}" -DOPENMP_STANDALONE_BUILD=ON >"$work/cmake.log" 2>&1
fi || { tail -30 "$work/cmake.log" >&2; jompd_die "cmake failed for llvm-$version (log: $work/cmake.log)"; }
ninja -C "$build" install >"$work/ninja.log" 2>&1 \
  || { tail -30 "$work/ninja.log" >&2; jompd_die "build failed for llvm-$version (log: $work/ninja.log)"; }

libdir=$(dirname "$(find "$prefix" -name 'libomp.so' | head -1)")
[ -n "$libdir" ] || jompd_die "no libomp.so installed under $prefix"
[ -f "$libdir/libompd.so" ] || jompd_die "no libompd.so installed under $prefix (OMPD support off?)"
nm "$libdir/libomp.so" | grep ompd_dll_locations >/dev/null || jompd_die "libomp.so has no OMPD breadcrumbs"
# One stable place for the library directory, whatever cmake called it (lib, lib64, lib/x86_64-...).
[ "$libdir" = "$prefix/lib" ] || ln -sfn "$libdir" "$prefix/lib"
touch "$stamp"
jompd_log "libomp $upstream installed in $prefix"
echo "$prefix"

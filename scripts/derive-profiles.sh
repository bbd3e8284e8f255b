#!/usr/bin/env bash
# Derives the runtime profiles jompd uses to read a stripped libomp (Debian's libomp5-NN, or any build
# after strip --strip-all) from our own OMPD builds of the same upstream versions: for each version, runs
# a tiny OpenMP program on our build with OMP_DEBUG=enabled, dumps a core with gdb, and lets
# ProfileDeriver record where the breadcrumbs and globals sit. Writes
# ompd-core/src/main/resources/dev/jompd/core/ompd/profile/libomp-VERSION.profile and profiles.list.
#
# usage: scripts/derive-profiles.sh [MAJOR...]     (default: every major of the supported-runtimes list)
set -euo pipefail
. "$(dirname "$0")/common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
jompd_select_java
versions=("$@"); [ ${#versions[@]} -gt 0 ] || mapfile -t versions < <(jompd_runtimes)
out="$root/ompd-core/src/main/resources/dev/jompd/core/ompd/profile"
classes="$root/ompd-core/target/classes"
[ -f "$classes/dev/jompd/core/ompd/profile/ProfileDeriver.class" ] \
  || (cd "$root" && mvn -B -q -ntp -pl ompd-core compile -Djazzer.skip) || jompd_die "cannot compile ompd-core"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#include <omp.h>
#include <stdio.h>
__attribute__((noinline)) void profile_marker(void) { __asm__ volatile(""); }
int main(void) {
  #pragma omp parallel num_threads(2)
  { if (omp_get_thread_num() == 0) profile_marker(); }
  return 0;
}
C
mkdir -p "$out"
for major in "${versions[@]}"; do
  prefix="$("$root/scripts/build-runtime.sh" "$major")"
  version="$(jompd_runtime_field "$major" upstream)"
  clang-19 -fopenmp -g -O0 "$work/probe.c" -o "$work/probe-$major" -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lomp
  OMP_DEBUG=enabled gdb -nx -batch -ex 'set debuginfod enabled off' -ex 'break profile_marker' -ex run \
    -ex "gcore $work/core-$major" -ex kill "$work/probe-$major" >"$work/gdb-$major.log" 2>&1 \
    || { cat "$work/gdb-$major.log" >&2; jompd_die "gdb could not dump a core of the probe on libomp $major"; }
  java -cp "$classes" dev.jompd.core.ompd.profile.ProfileDeriver "$version" "$prefix/lib/libomp.so" \
    "$work/core-$major" "$out/libomp-$version.profile"
done
(cd "$out" && ls libomp-*.profile | sort -V) >"$out/profiles.list"
jompd_log "profiles: $(tr '\n' ' ' <"$out/profiles.list")"

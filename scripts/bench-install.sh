#!/usr/bin/env bash
# The self-contained distribution beside the Maven-built one, in one run: sizes, and the time of a cold
# `jompd inspect --core` (a new JVM each run) from each — on first use (an empty cache directory: no
# ahead-of-time cache yet) and once each has trained its cache (what every later run gets).
#
# usage: scripts/bench-install.sh [RUNS]     (default 7, interleaved; medians with min-max)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
runs="${1:-7}"
jompd_select_java
runtime=$(bash scripts/build-runtime.sh 19)
mapfile -t packages < <(bash scripts/package.sh)
tarball="${packages[0]}"
maven=gdb-adapter/target/jompd

work=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; kill "${program:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
image=$(ls -d "$work"/jompd-*)

# a core of a fixture held at its marker (16 threads in two levels)
make -s -C test-programs/src/main/c RT="$runtime" OUT="$work/fx" "$work/fx/nested" >/dev/null
mkfifo "$work/in"
OMP_DEBUG=enabled JOMPD_HOLD=1 "$work/fx/nested" 4 4 <"$work/in" >"$work/out" 2>&1 &
program=$!
exec 3>"$work/in"
until grep -q JOMPD_AT_MARKER "$work/out" 2>/dev/null; do sleep 0.1; done
gdb -batch -nx -p "$program" -ex "gcore $work/core" >/dev/null 2>&1
echo >&3; wait "$program" || true

millis() { # command...: wall milliseconds of one run (output discarded; a failure stops the benchmark)
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || jompd_die "failed: $*"
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%d [%d-%d]", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
inspect=(inspect --core "$work/core" --exe "$work/fx/nested")

# first use: every run with an empty cache directory
: > "$work/first.image"; : > "$work/first.maven"
for _ in $(seq "$runs"); do
  rm -rf "$work/cache"; XDG_CACHE_HOME="$work/cache" JOMPD_NO_AOT=1 millis "$image/bin/jompd" "${inspect[@]}" >> "$work/first.image"
  rm -rf "$work/cache"; XDG_CACHE_HOME="$work/cache" JOMPD_NO_AOT=1 millis env JOMPD_JAVA="$JAVA_HOME/bin/java" "$maven/bin/jompd" "${inspect[@]}" >> "$work/first.maven"
done
# trained: each distribution's own cache directory, trained by a first run, then timed
mkdir -p "$work/cache-image" "$work/cache-maven"
XDG_CACHE_HOME="$work/cache-image" "$image/bin/jompd" "${inspect[@]}" >/dev/null 2>&1
XDG_CACHE_HOME="$work/cache-maven" JOMPD_JAVA="$JAVA_HOME/bin/java" "$maven/bin/jompd" "${inspect[@]}" >/dev/null 2>&1
for _ in $(seq 300); do  # the training runs in the background: wait for both caches
  [ -n "$(ls "$work"/cache-image/jompd/*.aot 2>/dev/null)" ] && [ -n "$(ls "$work"/cache-maven/jompd/*.aot 2>/dev/null)" ] && break
  sleep 0.2
done
: > "$work/aot.image"; : > "$work/aot.maven"
for _ in $(seq "$runs"); do
  XDG_CACHE_HOME="$work/cache-image" millis "$image/bin/jompd" "${inspect[@]}" >> "$work/aot.image"
  XDG_CACHE_HOME="$work/cache-maven" millis env JOMPD_JAVA="$JAVA_HOME/bin/java" "$maven/bin/jompd" "${inspect[@]}" >> "$work/aot.maven"
done

median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }
echo
echo "jompd distributions, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $runs runs each, interleaved"
printf '%-44s %-22s %-22s %s\n' "" "self-contained" "Maven-built + JDK" "self / Maven"
printf '%-44s %-22s %-22s %s\n' "download (.tar.gz / jars only)" "$(mb $(( $(stat -c %s "$tarball") / 1024 )))" \
  "$(mb $(du -sk "$maven/lib" | cut -f1))" "-"
printf '%-44s %-22s %-22s %s\n' "on disk (image / distribution + JDK 25)" "$(mb $(du -sk "$image" | cut -f1))" \
  "$(mb $(( $(du -sk "$maven" | cut -f1) + $(du -sk "$JAVA_HOME" | cut -f1) )))" \
  "$(ratio "$(du -sk "$image" | cut -f1)" "$(( $(du -sk "$maven" | cut -f1) + $(du -sk "$JAVA_HOME" | cut -f1) ))")"
printf '%-44s %-22s %-22s %s\n' "  of which the Java runtime" "$(mb $(du -sk "$image/runtime" | cut -f1))" "$(mb $(du -sk "$JAVA_HOME" | cut -f1))" "-"
printf '%-44s %-22s %-22s %s\n' "inspect --core, first use (ms)" "$(stats < "$work/first.image")" "$(stats < "$work/first.maven")" \
  "$(ratio "$(median "$work/first.image")" "$(median "$work/first.maven")")"
printf '%-44s %-22s %-22s %s\n' "inspect --core, cache trained (ms)" "$(stats < "$work/aot.image")" "$(stats < "$work/aot.maven")" \
  "$(ratio "$(median "$work/aot.image")" "$(median "$work/aot.maven")")"
echo "(goal: the self-contained distribution no slower: self / Maven <= 1.00 within the spread)"

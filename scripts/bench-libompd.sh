#!/usr/bin/env bash
# Benchmark of jompd as a standard OMPD library: LLVM's gdb plugin (Debian's libomp-19-dev) in real gdb on the
# live 256-thread fixture (nested 16 16, libomp 19 with OMPD), once loading jompd's libompd.so (first on gdb's
# LD_LIBRARY_PATH) and once LLVM's (beside the program's libomp), in one run. Times `ompd init` (jompd's engine
# starts there), the `continue` to the marker (the plugin maps every new thread at ompd_bp_thread_begin:
# ompd_get_thread_handle per thread), and `ompd threads` (ompd_get_state per thread) twice; prints each and
# the ratio jompd/LLVM. Which library each session loaded is checked in /proc/<gdb>/maps.
# usage: scripts/bench-libompd.sh [SESSIONS (3)]
#   JOMPD_LIBOMPD_DIR: the directory holding jompd's libompd.so and its jars (default: libompd/target/lib,
#   which `mvn -pl libompd package` lays out; a distribution's lib/ works too)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
sessions="${1:-3}"
plugin=/usr/lib/llvm-19/share/gdb/python/ompd/__init__.py
runtime="$JOMPD_CACHE/llvm-19"
jompd_lib="$(readlink -f "${JOMPD_LIBOMPD_DIR:-libompd/target/lib}")"
[ -f "$plugin" ] || jompd_die "LLVM's gdb plugin is not at $plugin (Debian package libomp-19-dev)"
[ -f "$runtime/lib/libompd.so" ] || jompd_die "no OMPD-enabled libomp 19 in $runtime (scripts/build-runtime.sh 19)"
[ -f "$jompd_lib/libompd.so" ] || jompd_die "no jompd libompd.so in $jompd_lib (mvn -pl libompd -am package)"

work=$(mktemp -d "${TMPDIR:-/tmp}/jompd-bench-libompd.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=test-programs/src/main/c
clang-19 -fopenmp -g -O0 -fno-omit-frame-pointer -I"$runtime/include" -L"$runtime/lib" -Wl,-rpath,"$runtime/lib" \
  -o "$work/nested" "$src/nested.c" "$src/fixture.c" -lpthread

cat > "$work/bench.gdb" <<EOF
set pagination off
set confirm off
break jompd_marker
source $plugin
python import time, os; jompd_t = time.monotonic()
ompd init
python print("BENCH init %.1f" % ((time.monotonic() - jompd_t) * 1000)); jompd_t = time.monotonic()
continue
python print("BENCH continue %.1f" % ((time.monotonic() - jompd_t) * 1000)); jompd_t = time.monotonic()
ompd threads
python print("BENCH threads1 %.1f" % ((time.monotonic() - jompd_t) * 1000)); jompd_t = time.monotonic()
ompd threads
python print("BENCH threads2 %.1f" % ((time.monotonic() - jompd_t) * 1000))
python print("BENCH maps " + " ".join(sorted({l.split()[-1] for l in open("/proc/%d/maps" % os.getpid()) if l.rstrip().endswith("/libompd.so")})))
kill
quit
EOF

run() { # run LIBRARY_DIR OUTPUT
  LD_LIBRARY_PATH="$1" OMP_DEBUG=enabled timeout 600 gdb -nx -q -batch -x "$work/bench.gdb" \
    --args "$work/nested" 16 16 > "$2" 2>&1
}

declare -A total
for i in $(seq "$sessions"); do
  for who in jompd llvm; do
    out="$work/$who-$i.txt"
    if [ "$who" = jompd ]; then run "$jompd_lib" "$out"; want="$jompd_lib/libompd.so"
    else run "" "$out"; want="$(readlink -f "$runtime/lib/libompd.so")"; fi
    maps=$(sed -n 's/^BENCH maps //p' "$out")
    [ "$maps" = "$want" ] || jompd_die "session $i ($who) loaded '$maps', not $want: see $out"
    threads=$(grep -c "is an OpenMP thread" "$out" || true)
    [ "$threads" -ge 512 ] || jompd_die "session $i ($who): $threads OpenMP thread lines, wanted 2 x 256"
    for step in init continue threads1 threads2; do
      ms=$(sed -n "s/^BENCH $step //p" "$out")
      total[$who.$step]=$(echo "${total[$who.$step]:-0} + $ms" | bc)
    done
  done
done

printf '%-10s %12s %12s %8s\n' "step" "jompd (ms)" "LLVM (ms)" "ratio"
for step in init continue threads1 threads2; do
  j=$(echo "scale=1; ${total[jompd.$step]} / $sessions" | bc)
  l=$(echo "scale=1; ${total[llvm.$step]} / $sessions" | bc)
  printf '%-10s %12s %12s %8s\n' "$step" "$j" "$l" "$(echo "scale=2; $j / $l" | bc)"
done
echo "(mean of $sessions sessions each; nested 16 16 = 256 OpenMP threads, live, LLVM's gdb plugin)"

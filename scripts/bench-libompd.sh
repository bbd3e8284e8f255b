#!/usr/bin/env bash
# Benchmark of jompd as a standard OMPD library: LLVM's gdb plugin (Debian's libomp-19-dev) in real gdb on the
# live 256-thread fixture (nested 16 16, libomp 19 with OMPD), once loading jompd's libompd.so (first on gdb's
# LD_LIBRARY_PATH) and once LLVM's (beside the program's libomp), alternating, in one run. Times `ompd init`
# (jompd's engine starts there), the `continue` to the marker (the plugin maps every new thread at
# ompd_bp_thread_begin: ompd_get_thread_handle per thread), and `ompd threads` (ompd_get_state per thread) twice;
# prints each (median and range over the sessions), the ratio of the medians jompd/LLVM, and the debugger
# callbacks each library made in that step: the plugin's Python callbacks (read, read string, symbol lookup,
# thread context, print), counted by wrapping them (its C module looks each up by name at every call; the
# wrapper costs both libraries alike). Which library each session loaded is checked in /proc/<gdb>/maps.
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

cat > "$work/bench.gdb" <<GDB
set pagination off
set confirm off
break jompd_marker
source $plugin
python
import time, os, ompd_callbacks
jompd_calls = {}
def jompd_count(name):
    original = getattr(ompd_callbacks, name)
    def counted(*args):
        jompd_calls[name] = jompd_calls.get(name, 0) + 1
        return original(*args)
    setattr(ompd_callbacks, name, counted)
for jompd_name in ("_read", "_read_string", "_sym_addr", "_thread_context", "_print"):
    jompd_count(jompd_name)
def jompd_step(step):
    global jompd_t
    ms = (time.monotonic() - jompd_t) * 1000
    print("BENCH %s %.1f %d %d" % (step, ms, sum(jompd_calls.values()), jompd_calls.get("_read", 0)))
    jompd_calls.clear()
    jompd_t = time.monotonic()
jompd_t = time.monotonic()
end
ompd init
python jompd_step("init")
continue
python jompd_step("continue")
ompd threads
python jompd_step("threads1")
ompd threads
python jompd_step("threads2")
python print("BENCH maps " + " ".join(sorted({l.split()[-1] for l in open("/proc/%d/maps" % os.getpid()) if l.rstrip().endswith("/libompd.so")})))
kill
quit
GDB

run() { # run LIBRARY_DIR OUTPUT
  LD_LIBRARY_PATH="$1" OMP_DEBUG=enabled timeout 600 gdb -nx -q -batch -x "$work/bench.gdb" \
    --args "$work/nested" 16 16 > "$2" 2>&1
}

steps="init continue threads1 threads2"
declare -A times calls reads
for i in $(seq "$sessions"); do
  for who in jompd llvm; do # alternating: the machine's load reaches both alike
    out="$work/$who-$i.txt"
    if [ "$who" = jompd ]; then run "$jompd_lib" "$out"; want="$jompd_lib/libompd.so"
    else run "" "$out"; want="$(readlink -f "$runtime/lib/libompd.so")"; fi
    maps=$(sed -n 's/^BENCH maps //p' "$out")
    [ "$maps" = "$want" ] || jompd_die "session $i ($who) loaded '$maps', not $want: see $out"
    threads=$(grep -c "is an OpenMP thread" "$out" || true)
    [ "$threads" -ge 512 ] || jompd_die "session $i ($who): $threads OpenMP thread lines, wanted 2 x 256"
    for step in $steps; do
      line=$(sed -n "s/^BENCH $step //p" "$out")
      [ -n "$line" ] || jompd_die "session $i ($who): no measurement of $step: see $out"
      read -r ms n r <<<"$line"
      times[$who.$step]+="$ms "
      calls[$who.$step]+="$n "
      reads[$who.$step]+="$r "
    done
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
range() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {printf "%s-%s", v[1], v[NR]}'; }
printf '%-9s %22s %22s %6s   %s\n' "step" "jompd ms" "LLVM ms" "ratio" "callbacks jompd / LLVM (reads)"
for step in $steps; do
  jm=$(median "${times[jompd.$step]}"); lm=$(median "${times[llvm.$step]}")
  printf '%-9s %22s %22s %6s   %s / %s (%s / %s)\n' "$step" "$jm ($(range "${times[jompd.$step]}"))" \
    "$lm ($(range "${times[llvm.$step]}"))" "$(echo "scale=2; $jm / $lm" | bc)" \
    "$(median "${calls[jompd.$step]}")" "$(median "${calls[llvm.$step]}")" \
    "$(median "${reads[jompd.$step]}")" "$(median "${reads[llvm.$step]}")"
done
echo "(median (min-max) of $sessions sessions each, alternating; ratio of the medians; callbacks: the plugin's Python"
echo " callbacks in that step, median; nested 16 16 = 256 OpenMP threads, live; load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"

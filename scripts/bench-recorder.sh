#!/usr/bin/env bash
# Overhead of the jompd-recorder: a task-heavy and a barrier-heavy program (recorder/bench/), each run
# REPS times (default 7) without a tool, with an empty tool (every callback registered, doing nothing:
# libomp's own OMPT cost, the anchor any tool pays) and with the recorder (OMP_TOOL_LIBRARIES),
# interleaved; the medians of their wall times side by side as ratios. Goal: recorder/none < 1.05.
#   scripts/bench-recorder.sh [REPS]        env: JOMPD_RECORDER_EVENTS (ring size), BENCH_TASKS, BENCH_BARRIERS
set -euo pipefail
. "$(dirname "$0")/common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-7}"
rt="${JOMPD_CACHE:-$HOME/.cache/jompd}/llvm-19"
[ -f "$rt/.jompd-complete" ] || bash "$root/scripts/build-runtime.sh" 19
out="$(mktemp -d "${TMPDIR:-/tmp}/jompd-bench-recorder.XXXXXX")"
trap 'rm -rf "$out"' EXIT
make -s -C "$root/recorder" RT="$rt" OUT="$out" >/dev/null
for program in tasks barriers; do
  clang-19 -fopenmp -O2 -I"$rt/include" -L"$rt/lib" -Wl,-rpath,"$rt/lib" -o "$out/$program" "$root/recorder/bench/$program.c"
done
clang-19 -O2 -fPIC -shared -I"$rt/include" -o "$out/empty-tool.so" "$root/recorder/bench/empty_tool.c"
recorder="$out/libjompd-recorder.so"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { awk '/^elapsed/ { print $2 }'; }

printf '%-9s %4s %10s %10s %10s %11s %13s %14s\n' program reps "none (s)" "empty (s)" "recorder(s)" "empty/none" "recorder/none" "recorder/empty"
for program in tasks barriers; do
  case "$program" in
    tasks) args=("${BENCH_TASKS:-200000}" 5) ;;
    barriers) args=("${BENCH_BARRIERS:-20000}") ;;
  esac
  : >"$out/without"; : >"$out/empty"; : >"$out/with"
  "$out/$program" "${args[@]}" >/dev/null # warm-up: page cache, CPU frequency
  for ((i = 0; i < reps; i++)); do
    env -u OMP_TOOL_LIBRARIES "$out/$program" "${args[@]}" | elapsed >>"$out/without"
    OMP_TOOL_LIBRARIES="$out/empty-tool.so" "$out/$program" "${args[@]}" | elapsed >>"$out/empty"
    OMP_TOOL_LIBRARIES="$recorder" "$out/$program" "${args[@]}" | elapsed >>"$out/with"
  done
  without="$(median <"$out/without")"
  empty="$(median <"$out/empty")"
  with="$(median <"$out/with")"
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
  printf '%-9s %4d %10.4f %10.4f %10.4f %11s %13s %14s\n' "$program" "$reps" "$without" "$empty" "$with" \
    "$(ratio "$empty" "$without")" "$(ratio "$with" "$without")" "$(ratio "$with" "$empty")"
done
echo "(medians of wall time of the work; $(nproc) CPUs; ring ${JOMPD_RECORDER_EVENTS:-1024} events per thread)"

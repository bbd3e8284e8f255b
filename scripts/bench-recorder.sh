#!/usr/bin/env bash
# Overhead of the jompd-recorder on three programs (recorder/bench/): empty tasks (the worst case: a
# task that does nothing, three events each), tasks with bodies as users write them (task_blocks: a
# task per block of an array, a few microseconds each) and barriers. Each runs REPS times (default 9)
# without a tool, with an empty tool (every callback registered, doing nothing: libomp's own OMPT cost,
# what any tool pays) and with the recorder (OMP_TOOL_LIBRARIES), interleaved; the medians of their wall
# times side by side as ratios, the spread (min-max of recorder/none over the repetitions, run by run),
# the ratio of the fastest runs (least disturbed by the machine's other load),
# and whether the case meets the goal: recorder/none < 1.05.
#   scripts/bench-recorder.sh [REPS]   env: JOMPD_RECORDER_EVENTS (ring size), BENCH_TASKS, BENCH_ROUNDS, BENCH_BARRIERS
set -euo pipefail
. "$(dirname "$0")/common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-9}"
rt="${JOMPD_CACHE:-$HOME/.cache/jompd}/llvm-19"
[ -f "$rt/.jompd-complete" ] || bash "$root/scripts/build-runtime.sh" 19
out="$(mktemp -d "${TMPDIR:-/tmp}/jompd-bench-recorder.XXXXXX")"
trap 'rm -rf "$out"' EXIT
make -s -C "$root/recorder" RT="$rt" OUT="$out" >/dev/null
for program in tasks task_blocks barriers; do
  clang-19 -fopenmp -O2 -I"$rt/include" -L"$rt/lib" -Wl,-rpath,"$rt/lib" -o "$out/$program" "$root/recorder/bench/$program.c" -lm
done
clang-19 -O2 -fPIC -shared -I"$rt/include" -o "$out/empty-tool.so" "$root/recorder/bench/empty_tool.c"
recorder="$out/libjompd-recorder.so"

minimum() { sort -g | head -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { awk '/^elapsed/ { print $2 }'; }

printf '%-12s %4s %9s %9s %11s %10s %13s %14s %13s %9s  %s\n' program reps "none (s)" "empty (s)" "recorder(s)" "empty/none" \
  "recorder/none" "recorder/empty" "spread" "fastest" "goal < 1.05"
for program in tasks task_blocks barriers; do
  case "$program" in
    tasks) args=("${BENCH_TASKS:-500000}" 8) ;;
    task_blocks) args=($((1 << 20)) "${BENCH_ROUNDS:-150}") ;;
    barriers) args=("${BENCH_BARRIERS:-200000}") ;;
  esac
  : >"$out/without"; : >"$out/empty"; : >"$out/with"
  "$out/$program" "${args[@]+"${args[@]}"}" >/dev/null # warm-up: page cache, CPU frequency
  for ((i = 0; i < reps; i++)); do
    env -u OMP_TOOL_LIBRARIES "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/without"
    OMP_TOOL_LIBRARIES="$out/empty-tool.so" "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/empty"
    OMP_TOOL_LIBRARIES="$recorder" "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/with"
  done
  # recorder/none of each repetition (neighbouring runs share the machine's load at that moment)
  spread="$(paste "$out/with" "$out/without" | awk '{ r = $1 / $2; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
    END { printf "%.2f-%.2f", lo, hi }')"
  without="$(median <"$out/without")"
  empty="$(median <"$out/empty")"
  with="$(median <"$out/with")"
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
  # the fastest run of each: what the machine's other load disturbed least
  fastest="$(ratio "$(minimum <"$out/with")" "$(minimum <"$out/without")")"
  verdict="$(awk -v a="$with" -v b="$without" 'BEGIN { print (a / b < 1.05) ? "met" : "NOT met" }')"
  printf '%-12s %4d %9.4f %9.4f %11.4f %10s %13s %14s %13s %9s  %s\n' "$program" "$reps" "$without" "$empty" "$with" \
    "$(ratio "$empty" "$without")" "$(ratio "$with" "$without")" "$(ratio "$with" "$empty")" "$spread" "$fastest" "$verdict"
done
echo "(medians of wall time of the work; $(nproc) CPUs, shared with whatever else runs; ring ${JOMPD_RECORDER_EVENTS:-1024} events per thread)"
echo "tasks: empty task bodies, the worst case (libomp's OMPT alone is empty/none); task_blocks: a task per"
echo "block of 512 doubles, a few microseconds each; barriers: explicit barriers with a little work between."
echo "spread: recorder/none run by run (min-max); fastest: recorder/none of the fastest runs; the verdict is the medians'."

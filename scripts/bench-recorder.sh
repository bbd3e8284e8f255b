#!/usr/bin/env bash
# Overhead of the jompd-recorder on four programs (recorder/bench/): empty tasks (the worst case: a
# task that does nothing, three events each), tasks with bodies as users write them (task_blocks: a
# task per block of an array, a few microseconds each), empty barriers (the worst case) and barriers
# with work as users write it (barrier_sweeps: a stencil sweep between barriers). Each runs REPS times (default 9)
# without a tool, with an empty tool (every callback registered, doing nothing: libomp's own OMPT cost,
# what any tool pays) and with the recorder (OMP_TOOL_LIBRARIES), interleaved; the medians of their wall
# times and, side by side, the medians of the ratios taken run by run (the runs of one repetition follow
# each other, sharing the machine's load of that moment), their spread (min-max of recorder/none) and
# whether the case meets the goal: recorder/none < 1.05. OMP_NUM_THREADS=1 gives steadier numbers for the
# task programs on a busy machine.
#   scripts/bench-recorder.sh [REPS]   env: JOMPD_RECORDER_EVENTS (ring size), BENCH_TASKS, BENCH_ROUNDS, BENCH_BARRIERS,
#                                      BENCH_SWEEPS, BENCH_PROGRAMS (default "tasks task_blocks barriers barrier_sweeps")
set -euo pipefail
. "$(dirname "$0")/common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-9}"
rt="${JOMPD_CACHE:-$HOME/.cache/jompd}/llvm-19"
[ -f "$rt/.jompd-complete" ] || bash "$root/scripts/build-runtime.sh" 19
out="$(mktemp -d "${TMPDIR:-/tmp}/jompd-bench-recorder.XXXXXX")"
trap 'rm -rf "$out"' EXIT
make -s -C "$root/recorder" RT="$rt" OUT="$out" >/dev/null
for program in tasks task_blocks barriers barrier_sweeps; do
  clang-19 -fopenmp -O2 -I"$rt/include" -L"$rt/lib" -Wl,-rpath,"$rt/lib" -o "$out/$program" "$root/recorder/bench/$program.c" -lm
done
clang-19 -O2 -fPIC -shared -I"$rt/include" -o "$out/empty-tool.so" "$root/recorder/bench/empty_tool.c"
recorder="$out/libjompd-recorder.so"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# "elapsed <wall seconds> cpu <process CPU seconds> ..." -> "<wall> <cpu>"
elapsed() { awk '/^elapsed/ { print $2, $4 }'; }

printf '%-12s %4s %9s %9s %11s %10s %13s %14s %13s %9s %9s  %s\n' program reps "none (s)" "empty (s)" "recorder(s)" "empty/none" \
  "recorder/none" "recorder/empty" "spread" "cpu r/n" "cpu r/e" "goal < 1.05"
for program in ${BENCH_PROGRAMS:-tasks task_blocks barriers barrier_sweeps}; do
  case "$program" in
    tasks) args=("${BENCH_TASKS:-500000}" 8) ;;
    task_blocks) args=($((1 << 20)) "${BENCH_ROUNDS:-150}") ;;
    barriers) args=("${BENCH_BARRIERS:-2000000}") ;;
    barrier_sweeps) args=($((1 << 14)) "${BENCH_SWEEPS:-200000}") ;;
  esac
  : >"$out/without"; : >"$out/empty"; : >"$out/with"
  "$out/$program" "${args[@]+"${args[@]}"}" >/dev/null # warm-up: page cache, CPU frequency
  for ((i = 0; i < reps; i++)); do
    env -u OMP_TOOL_LIBRARIES "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/without"
    OMP_TOOL_LIBRARIES="$out/empty-tool.so" "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/empty"
    OMP_TOOL_LIBRARIES="$recorder" "$out/$program" "${args[@]+"${args[@]}"}" | elapsed >>"$out/with"
  done
  # Ratios run by run: the three runs of one repetition follow each other and share the machine's load of
  # that moment, which on a shared machine varies far more than 5 % between repetitions.
  paired() { paste -d' ' "$1" "$2" | awk -v f="${3:-1}" '{ printf "%.6f\n", $f / $(f + 2) }' | median; }
  spread="$(paste -d' ' "$out/with" "$out/without" | awk '{ r = $1 / $3; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
    END { printf "%.2f-%.2f", lo, hi }')"
  empty_none="$(paired "$out/empty" "$out/without")"
  with_none="$(paired "$out/with" "$out/without")"
  with_empty="$(paired "$out/with" "$out/empty")"
  cpu_none="$(paired "$out/with" "$out/without" 2)"
  cpu_empty="$(paired "$out/with" "$out/empty" 2)"
  verdict="$(awk -v r="$with_none" 'BEGIN { print (r < 1.05) ? "met" : "NOT met" }')"
  wall() { cut -d' ' -f1 "$1" | median; }
  printf '%-12s %4d %9.4f %9.4f %11.4f %10.3f %13.3f %14.3f %13s %9.3f %9.3f  %s\n' "$program" "$reps" "$(wall "$out/without")" \
    "$(wall "$out/empty")" "$(wall "$out/with")" "$empty_none" "$with_none" "$with_empty" "$spread" "$cpu_none" "$cpu_empty" "$verdict"
done
echo "(seconds: medians of the work's wall time; ratios: medians of the ratios run by run; $(nproc --all) CPUs, shared with"
echo " whatever else runs; OMP_NUM_THREADS=${OMP_NUM_THREADS:-all}; ring ${JOMPD_RECORDER_EVENTS:-1024} events per thread)"
echo "tasks: empty task bodies, the worst case (libomp's OMPT alone is empty/none); task_blocks: a task per"
echo "block of 512 doubles, a few microseconds each; barriers: explicit barriers with nothing between them (the"
echo "worst case, four events per barrier and thread); barrier_sweeps: a stencil sweep per worksharing loop, whose"
echo "implicit barrier ends each sweep (a few microseconds of work per thread between barriers, as in solvers)."
echo "spread: recorder/none run by run, min-max; cpu r/n, r/e: the same medians of the process's CPU time of the work"
echo "(less disturbed by other load; it counts idle threads' spinning too); the verdict is on the median wall recorder/none."

#!/usr/bin/env bash
# Benchmark of the gdb bridge: the first `ompd threads` after gdb has started (engine start included) and
# later ones, on a core of the 256-thread fixture (nested 16 16), beside LLVM's reference gdb plugin doing
# the same in the same kind of gdb session. Prints a side-by-side table with ratios.
# usage: scripts/bench-gdb.sh [SESSIONS (5)] [REPEATS per session (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare gdb-adapter
cd gdb-adapter  # the core lands in gdb-adapter/target/jompd-fixtures
java -Djompd.gdb.distribution="$JOMPD_BENCH_WORK/jompd" -cp "$JOMPD_BENCH_CP" dev.jompd.gdb.bench.GdbBenchmark "$@"

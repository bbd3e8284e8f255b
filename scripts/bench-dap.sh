#!/usr/bin/env bash
# Benchmark: the DAP server at a stop of the 256-thread fixture (nested 16 16): from the stopped event to the
# thread list with OpenMP names, the top frame of every thread and the four OpenMP scopes of the stopped frame
# (target: under 300 ms), against what plain gdb/MI costs for the same stop.
# usage: scripts/bench-dap.sh [--stops N] [S1 S2]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare dap-server
cd dap-server
java --enable-native-access=ALL-UNNAMED -Djompd.dap.server="$JOMPD_BENCH_WORK/jompd-dap/bin/jompd-dap" \
  -cp "$JOMPD_BENCH_CP" dev.jompd.dap.bench.DapStopBenchmark "$@"

#!/usr/bin/env bash
# Benchmark: `jompd inspect --core` on the 256-thread fixture, cold (JVM start included, with and
# without AppCDS) and warm, beside gdb with LLVM's reference libompd dumping the same core.
# usage: scripts/bench-cli.sh [RUNS (5)]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare jompd-cli
java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.cli.bench.CliBenchmark \
  "$JOMPD_BENCH_WORK/jompd" "${1:-5}"

#!/usr/bin/env bash
# Benchmark: the first open of a stripped libomp through its runtime profile against the same core opened
# through the runtime's symbols (fresh JVMs, medians side by side with their ratio and the time added;
# target: < 50 ms added), and a second open of the same runtime (cached per build-id).
# usage: scripts/bench-profile.sh [--runs N] [--version V]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare ompd-core
cd ompd-core  # cores land in ompd-core/target/jompd-fixtures, next to the tests' cores
java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.core.bench.ProfileOpenBenchmark "$@"

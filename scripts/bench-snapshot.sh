#!/usr/bin/env bash
# Benchmark: jompd's complete ProcessSnapshot.take on a core of the 256-thread fixture (nested 16 16) against
# LLVM's reference libompd dumping the same data through its gdb plugin, with memory reads counted on both
# sides. Prints a side-by-side table with ratios.
# usage: scripts/bench-snapshot.sh [--repeats N] [fixture args...]   e.g. scripts/bench-snapshot.sh nested 8 8
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare ompd-core
cd ompd-core  # cores land in ompd-core/target/jompd-fixtures, next to the tests' cores
java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.core.bench.SnapshotBenchmark "$@"

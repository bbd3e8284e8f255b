#!/usr/bin/env bash
# Benchmark: native stacks of every thread of a core of the 256-thread fixture (nested 16 16) and of the
# 1024-thread one (nested 32 32), jompd's unwinder beside gdb's `thread apply all bt` on the same core:
# warm (repeats in one JVM / one gdb session) and cold (a fresh process each, start included), with ratios.
# usage: scripts/bench-stacks.sh [--repeats N]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare ompd-core
cd ompd-core  # cores land in ompd-core/target/jompd-fixtures, next to the tests' cores
java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.core.bench.StackBenchmark "$@"

#!/usr/bin/env bash
# Benchmark: native stacks of every thread of a core of the 256-thread fixture (nested 16 16) and of the
# 1024-thread one (nested 32 32), jompd beside gdb's `thread apply all bt` on the same core, with ratios:
#  1. ompd-core's unwinder: warm (repeats in one JVM / one gdb session) and cold (a fresh JVM running only
#     the unwinder, start included);
#  2. what a user runs: `jompd inspect --core CORE --stacks` cold through the distribution's launcher (on the
#     ahead-of-time cache it trains; the training run not counted) beside a fresh `gdb -batch` each time.
# usage: scripts/bench-stacks.sh [--repeats N] [--cold-runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
repeats=20
cold_runs=7
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats="$2"; shift 2 ;;
    --cold-runs) cold_runs="$2"; shift 2 ;;
    *) jompd_die "unknown argument $1 (usage: scripts/bench-stacks.sh [--repeats N] [--cold-runs N])" ;;
  esac
done
(
  jompd_bench_prepare ompd-core
  cd ompd-core  # cores land in ompd-core/target/jompd-fixtures, next to the tests' cores
  java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.core.bench.StackBenchmark --repeats "$repeats"
)
(
  jompd_bench_prepare jompd-cli
  cd jompd-cli  # its cores land in jompd-cli/target/jompd-fixtures
  java --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.cli.bench.StacksColdBenchmark \
    "$JOMPD_BENCH_WORK/jompd" "$cold_runs"
)

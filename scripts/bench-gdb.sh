#!/usr/bin/env bash
# Benchmark of the gdb bridge: the first `ompd threads` after gdb has started (engine start included) and
# later ones, on a core of the 256-thread fixture (nested 16 16), beside LLVM's reference gdb plugin doing
# the same in the same kind of gdb session. Prints a side-by-side table with ratios.
# usage: scripts/bench-gdb.sh [SESSIONS (5)] [REPEATS per session (20)]
# The core (about 3 GB) is made under gdb-adapter/target/jompd-fixtures on first use (about 15 s).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_select_java
bash scripts/build-runtime.sh 19 >/dev/null
command -v gdb >/dev/null || jompd_die "gdb is not installed: run scripts/setup-system.sh"
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
# The distribution (gdb-adapter/target/jompd) and the test classes; offline first, online when a plugin
# is not in the local repository yet.
mvn -B -ntp -q -o install -DskipTests -pl gdb-adapter -am \
  || mvn -B -ntp -q install -DskipTests -pl gdb-adapter -am
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
classpath_file="$work/classpath"
mvn -B -ntp -q -o -pl gdb-adapter dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file" >/dev/null 2>&1 \
  || mvn -B -ntp -q -pl gdb-adapter dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file"
# Private copies: a concurrent build in this tree must not swap classes or the engine during the run.
cp -r gdb-adapter/target/classes "$work/classes"
cp -r gdb-adapter/target/test-classes "$work/test-classes"
cp -rp gdb-adapter/target/jompd "$work/jompd"  # -p: same jar time, same class-data archive
# Run from gdb-adapter so that the core lands in gdb-adapter/target/jompd-fixtures.
cd gdb-adapter
java -Djompd.gdb.distribution="$work/jompd" -cp "$work/test-classes:$work/classes:$(cat "$classpath_file")" \
  dev.jompd.gdb.bench.GdbBenchmark "$@"

#!/usr/bin/env bash
# Benchmark: jompd's complete ProcessSnapshot.take on a core of the 256-thread fixture (nested 16 16) against
# LLVM's reference libompd dumping the same data through its gdb plugin, with memory reads counted on both
# sides. Prints a side-by-side table with ratios.
# usage: scripts/bench-snapshot.sh [--repeats N] [fixture args...]   e.g. scripts/bench-snapshot.sh nested 8 8
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_select_java
bash scripts/build-runtime.sh 19 >/dev/null
command -v gdb >/dev/null || jompd_die "gdb is not installed: run scripts/setup-system.sh"
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
# Only what the benchmark needs: ompd-core, test-programs and the parent. Offline first; online when a
# plugin (maven-install-plugin) is not in the local repository yet.
mvn -B -ntp -q -o install -DskipTests -pl ompd-core -am \
  || mvn -B -ntp -q install -DskipTests -pl ompd-core -am
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
classpath_file="$work/classpath"
# Offline first (everything is in the local repository after the install); online when a plugin is missing.
mvn -B -ntp -q -o -pl ompd-core dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file" >/dev/null 2>&1 \
  || mvn -B -ntp -q -pl ompd-core dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$classpath_file"
# A private copy of the classes: a concurrent build in this tree must not swap them during the run.
cp -r ompd-core/target/classes "$work/classes"
cp -r ompd-core/target/test-classes "$work/test-classes"
# Run from ompd-core so that cores land in ompd-core/target/jompd-fixtures, next to the tests' cores.
cd ompd-core
java --enable-native-access=ALL-UNNAMED -cp "$work/test-classes:$work/classes:$(cat "$classpath_file")" \
  dev.jompd.core.bench.SnapshotBenchmark "$@"

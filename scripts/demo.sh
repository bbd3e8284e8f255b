#!/usr/bin/env bash
# The main job: sets up everything (system packages, OMPD-enabled libomp, the build), runs an OpenMP
# fixture program to its marker, takes a core, and prints jompd's view of it: teams, threads, tasks, ICVs.
# usage: scripts/demo.sh [fixture [args...]]     e.g. scripts/demo.sh nested 4 4
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
bash scripts/setup-system.sh
jompd_select_java
bash scripts/build-runtime.sh 19 >/dev/null
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
mvn -B -ntp -q install -DskipTests
classpath=$(mvn -B -ntp -q -pl ompd-core dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
exec java --enable-native-access=ALL-UNNAMED -cp "ompd-core/target/test-classes:ompd-core/target/classes:$classpath" \
  dev.jompd.core.Demo "$@"

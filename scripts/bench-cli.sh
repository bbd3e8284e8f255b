#!/usr/bin/env bash
# Benchmark: `jompd inspect --core` on the 256-thread fixture, cold (JVM start included, with and
# without AppCDS) and warm, beside gdb with LLVM's reference plugin on the same core.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_select_java
bash scripts/build-runtime.sh 19 >/dev/null
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
mvn -B -ntp -q install -DskipTests
mvn -B -ntp -q -pl jompd-cli dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/classpath.txt
cp=$(cat jompd-cli/target/classpath.txt)
exec java --enable-native-access=ALL-UNNAMED -cp "jompd-cli/target/test-classes:jompd-cli/target/classes:$cp" \
  dev.jompd.cli.bench.CliBenchmark jompd-cli/target/jompd "${1:-5}"

#!/usr/bin/env bash
# Runs every test of jompd on a fresh machine: installs system packages, builds the OMPD-enabled
# runtimes the run tests into the cache, then runs unit tests, integration tests (real fixtures, gdb,
# core files, ptrace) and the bounded fuzz runs.
# Which runtimes: $JOMPD_RUNTIMES as the tests read it (SupportedRuntimes): by default the supported-runtimes
# list's ci lines (the oldest and the newest) and its default; scripts/test-all-runtimes.sh runs every line.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

bash scripts/setup-system.sh
jompd_select_java
runtimes=$(jompd_tested_runtimes | tr '\n' ' ')
jompd_log "runtimes tested: libomp $runtimes(JOMPD_RUNTIMES=${JOMPD_RUNTIMES:-ci})"
for version in $(jompd_runtimes default) $runtimes; do
  bash scripts/build-runtime.sh "$version" >/dev/null
done
# Maven's own Guava touches sun.misc.Unsafe on JDK 25: keep its warning out of the test log.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
mvn_flags=(-B -ntp)
[ -n "${CI:-}" ] && mvn_flags+=(-Dsurefire.printSummary=true)
mvn "${mvn_flags[@]}" verify "$@"
# The self-contained distributions (tarball, .deb) as a user meets them, with no JDK visible; needs root (a
# test user, apt, a mount namespace). Only on a whole run (no Maven arguments).
if [ $# -eq 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    mapfile -t packages < <(bash scripts/package.sh)
    bash scripts/test-install.sh "${packages[@]}"
  else
    jompd_log "skipped scripts/test-install.sh: it needs root (a test user, apt, a mount namespace)"
  fi
fi

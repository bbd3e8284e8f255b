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
# test user, apt, a mount namespace). Only on a whole run (no Maven arguments). Skipped without root, but on
# CI (CI set) it runs through sudo, or the run fails: a skip there would ship the packages untested.
install_test() { # [sudo ...]: makes the packages, then checks them (as root, or through what is given)
  local -a packages
  local listed
  listed=$(bash scripts/package.sh)   # a failure stops the run here (set -e)
  mapfile -t packages <<<"$listed"
  "$@" bash scripts/test-install.sh "${packages[@]}"
}
if [ $# -eq 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    install_test
  elif [ -z "${CI:-}" ]; then
    jompd_log "skipped scripts/test-install.sh: it needs root (a test user, apt, a mount namespace)"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    install_test sudo -n env JOMPD_CACHE="$JOMPD_CACHE"
  else
    jompd_die "scripts/test-install.sh needs root (a test user, apt, a mount namespace) and CI is set: run as root or with passwordless sudo (on CI it is not skipped)"
  fi
fi

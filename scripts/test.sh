#!/usr/bin/env bash
# Runs every test of jompd on a fresh machine: installs system packages, builds the OMPD-enabled
# runtimes the run tests into the cache, then runs unit tests, integration tests (real fixtures, gdb,
# core files, ptrace) and the bounded fuzz runs.
# Which runtimes: $JOMPD_RUNTIMES as the tests read it (SupportedRuntimes): by default the supported-runtimes
# list's ci lines (the oldest and the newest) and its default; scripts/test-all-runtimes.sh runs every line.
# scripts/test.sh --quick [maven arguments]: the edit-test loop (docs/testing.md): every unit test without the
# fuzzing executions, and one fast integration test class per door; no packages. With no argument: the whole
# suite, exactly as CI runs it (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

quick=
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi

# Both are idempotent and cheap once done (about 1 s: dpkg-query and the cache's stamps), so the quick mode
# runs them too: a missing package or runtime is installed rather than failing a test half-way.
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
if [ -n "$quick" ]; then
  # One integration test class per door, each among the fastest that reaches the door through a real program,
  # gdb and the runtime (timings in docs/testing.md): the CLI on a core, the gdb bridge's diagnosis, the DAP
  # server on a core, the report's diagnosis of known waits; ompd-core's navigation under them all.
  quick_its=NavigationIT,DiagnosisIT,InspectCommandIT,GdbDiagnoseIT,CoreIT
  mvn "${mvn_flags[@]}" verify -Djompd.fuzz.skip=true -Dit.test="$quick_its" \
    -Dfailsafe.failIfNoSpecifiedTests=false "$@"
  exit 0
fi
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

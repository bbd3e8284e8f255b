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
if [ $# -gt 0 ]; then   # narrowed by Maven arguments (-pl, -Dit.test, ...): one reactor run, no packages
  mvn "${mvn_flags[@]}" verify "$@"
  exit 0
fi
# The whole suite. Most of a test's time is spent waiting (a program reaching its marker, gdb starting, a JVM
# starting): a serial run kept the 2 cores of a CI machine about half busy. So: build and install every module
# once without tests (nor fuzzing: its executions set skipTests themselves), then run the modules' tests in three
# Maven streams at once, and the package checks beside them. A stream's modules take their dependencies from the
# installed artifacts; each module's outputs are used only by later modules of its own stream (the DAP server's
# job view runs jompd-cli's distribution, the gdb bridge's tests its own), so no stream rebuilds what another
# is running. The streams are balanced by their modules' times (docs/testing.md).
streams=(
  "jompd-cli,dap-server"
  "ompd-core,report,job"
  "test-programs,libompd,gdb-adapter"
)
logs=target/test-logs
rm -rf "$logs"
mkdir -p "$logs"
jompd_log "building and installing every module (no tests)"
mvn "${mvn_flags[@]}" -q install -DskipTests -Djompd.fuzz.skip=true > "$logs/build.log" 2>&1 || { cat "$logs/build.log"; exit 1; }

# The self-contained distributions (tarball, .deb) as a user meets them, with no JDK visible; needs root (a
# test user, apt, a mount namespace). Skipped without root, but on CI (CI set) it runs through sudo, or the run
# fails: a skip there would ship the packages untested.
install_test=()
if [ "$(id -u)" = 0 ]; then
  install_test=(bash scripts/test-install.sh)
elif [ -z "${CI:-}" ]; then
  jompd_log "skipped scripts/test-install.sh: it needs root (a test user, apt, a mount namespace)"
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  install_test=(sudo -n env JOMPD_CACHE="$JOMPD_CACHE" bash scripts/test-install.sh)
else
  jompd_die "scripts/test-install.sh needs root (a test user, apt, a mount namespace) and CI is set: run as root or with passwordless sudo (on CI it is not skipped)"
fi
packages=()
if [ ${#install_test[@]} -gt 0 ]; then
  # made from the distributions just built, before the streams rebuild them
  mapfile -t packages < <(bash scripts/package.sh)
  [ ${#packages[@]} -eq 2 ] || jompd_die "scripts/package.sh made no packages"
fi

names=()
pids=()
started=$SECONDS
for modules in "${streams[@]}"; do
  name=${modules%%,*}-and-on
  mvn "${mvn_flags[@]}" verify -pl "$modules" > "$logs/$name.log" 2>&1 &
  names+=("$name"); pids+=($!)
done
if [ ${#packages[@]} -gt 0 ]; then
  "${install_test[@]}" "${packages[@]}" > "$logs/install.log" 2>&1 &
  names+=(install); pids+=($!)
fi
jompd_log "running: ${names[*]} (logs in $logs/)"
failed=()
for i in "${!pids[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  jompd_log "${names[$i]}: exit $status after $((SECONDS - started)) s; its log:"
  cat "$logs/${names[$i]}.log"
  [ "$status" -eq 0 ] || failed+=("${names[$i]}")
done
# the count over every module's reports: a skip is said (on CI a missing tool fails its test instead)
read -r tests skipped < <(cat */target/surefire-reports/TEST-*.xml */target/failsafe-reports/TEST-*.xml 2>/dev/null \
  | sed -n 's/.*<testsuite [^>]*tests="\([0-9]*\)"[^>]*skipped="\([0-9]*\)".*/\1 \2/p' \
  | awk '{ t += $1; s += $2 } END { print t + 0, s + 0 }')
jompd_log "$tests Java tests ran, $skipped of them skipped"
[ ${#failed[@]} -eq 0 ] || jompd_die "failed: ${failed[*]} (logs in $logs/)"
jompd_log "every test passed in $((SECONDS - started)) s after the build"

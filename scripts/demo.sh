#!/usr/bin/env bash
# The main job. Sets up everything (system packages, an OMPD-enabled libomp, the jompd distribution),
# then: an OpenMP fixture program reaches its marker and holds there; jompd inspects it live (ptrace,
# then lets it go on); gdb takes a core of the same state; jompd inspects the core; the program is
# released and finishes with its own correctness check.
# usage: scripts/demo.sh [fixture [args...]]     default: nested 3 2   (see FIXTURES.md)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
bash scripts/setup-system.sh
jompd_select_java
runtime=$(bash scripts/build-runtime.sh 19)
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
jompd_log "building jompd (mvn install -DskipTests)"
mvn -B -ntp -q install -DskipTests
jompd=jompd-cli/target/jompd/bin/jompd

fixture="${1:-nested}"; shift || true
[ $# -gt 0 ] || { [ "$fixture" = nested ] && set -- 3 2; }
work=$(mktemp -d /tmp/jompd-demo.XXXXXX)
make -s -C test-programs/src/main/c RT="$runtime" OUT="$work" "$work/$fixture" >/dev/null

# Start the program held at its marker: it prints JOMPD_AT_MARKER <pid> and waits for a line on stdin.
mkfifo "$work/stdin"
OMP_DEBUG=enabled JOMPD_HOLD=1 "$work/$fixture" "$@" <"$work/stdin" >"$work/stdout" 2>"$work/stderr" &
program=$!
exec 3>"$work/stdin"
trap 'exec 3>&-; kill $program 2>/dev/null || true' EXIT
until grep -q JOMPD_AT_MARKER "$work/stdout" 2>/dev/null; do
  kill -0 $program 2>/dev/null || { cat "$work/stderr" >&2; jompd_die "$fixture exited before its marker"; }
  sleep 0.1
done

jompd_log "$fixture $* (pid $program) holds at its marker; jompd inspects it live"
"$jompd" inspect --pid "$program" || jompd_log "live inspection failed (exit $?): see above"

jompd_log "taking a core of the same state with gdb, then inspecting the core"
gdb -batch -nx -p "$program" -ex "gcore $work/core" >/dev/null 2>&1
"$jompd" inspect --core "$work/core" --exe "$work/$fixture" --stacks
jompd_log "why the threads wait: $jompd diagnose --core $work/core"
"$jompd" diagnose --core "$work/core" --exe "$work/$fixture"

echo >&3
wait $program || true
jompd_log "program released: $(grep JOMPD_RESULT "$work/stdout")"
jompd_log "JSON of the same report: $jompd inspect --core $work/core --json"

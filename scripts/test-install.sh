#!/usr/bin/env bash
# Checks jompd's self-contained distributions as a user meets them, on a machine where no JDK can be seen:
# the tarball unpacked by an unprivileged user into a fresh directory, then the .deb installed with apt,
# each inspecting a live process and a core of a fixture (checked against the facts the program wrote about
# itself), running `jompd run` on a gcc-built program, diagnosing a deadlock's core, and answering `ompd
# threads` in gdb; the .deb is then removed and must leave nothing behind.
# The JDKs are hidden in a private mount namespace (an empty tmpfs over /usr/lib/jvm, which also leaves
# /usr/bin/java dangling), with no JAVA_HOME, no JOMPD_JAVA and a PATH of system directories only.
# Needs root (a test user, apt, the mount namespace).
#
# usage: scripts/test-install.sh TARBALL DEB        (from scripts/package.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
tarball=$(readlink -f "${1:?usage: scripts/test-install.sh TARBALL DEB}")
deb=$(readlink -f "${2:?usage: scripts/test-install.sh TARBALL DEB}")
[ "$(id -u)" = 0 ] || jompd_die "test-install.sh needs root (a test user, apt, a mount namespace)"
runtime=$(bash scripts/build-runtime.sh 19)

user=jompd-install-test
work=$(mktemp -d /tmp/jompd-install.XXXXXX)
chmod 755 "$work"
home="$work/home"
id "$user" >/dev/null 2>&1 || useradd --no-create-home --shell /bin/bash "$user"
mkdir -p "$home"
cleanup() {
  pkill -u "$user" 2>/dev/null || true
  dpkg -s jompd >/dev/null 2>&1 && apt-get remove -y -q jompd >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The runtime and the fixtures where the user can read them: jompd run finds the runtime in $JOMPD_CACHE.
mkdir -p "$work/cache" "$work/fixtures"
cp -a "$runtime" "$work/cache/llvm-19"
make -s -C test-programs/src/main/c RT="$work/cache/llvm-19" OUT="$work/fixtures" \
  "$work/fixtures/nested" "$work/fixtures/lock_deadlock" "$work/fixtures/nested_gcc" >/dev/null
cp "$tarball" "$work/"
cp scripts/test-install-checks.py "$work/checks.py"   # the verdicts, where the user can read them
cp test-programs/src/main/c/*.c test-programs/src/main/c/*.h "$work/fixtures/"  # sources, for gdb's and jompd's lines
chown -R "$user" "$home" "$work/cache" "$work/fixtures"

# What the user runs: JOMPD is the jompd command, BRIDGE how gdb gets the ompd commands ("auto": the .deb's).
cat > "$work/scenario.sh" <<'SCENARIO'
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# no JDK anywhere
[ -z "${JAVA_HOME:-}" ] || fail "JAVA_HOME is set"
! command -v java >/dev/null 2>&1 || fail "a java is on PATH: $(command -v java)"
[ -z "$(ls -A /usr/lib/jvm)" ] || fail "/usr/lib/jvm is visible"
[ "$(id -u)" != 0 ] || fail "running as root"
ok "no JDK visible, user $(id -un)"
# an empty environment (env -i: no HOME, no PATH), as service managers and sandboxes start programs
bin=$(dirname "$(command -v "$JOMPD")")
# exactly the version line, on stdout and stderr together: no "HOME: unbound variable", no note about a cache
out=$(env -i "$bin/jompd" --version 2>&1)
[[ "$out" =~ ^jompd\ [^[:space:]]+\ \(OMPD\ [^$'\n']*\)$ ]] || fail "env -i jompd --version: $out"
[ "$(env -i "$bin/jompd-dap" --help 2>&1)" = "$(JOMPD_DAP_AOT=off "$bin/jompd-dap" --help)" ] || fail "env -i jompd-dap --help: $(env -i "$bin/jompd-dap" --help 2>&1)"
ok "env -i: jompd --version and jompd-dap --help answer as with the user's environment"
fx="$FIXTURES"
cd "$SCRATCH"

hold() { # name program args...: starts it held at its marker (sets held_pid; its stdin stays open on fd held_fd)
  local name="$1"; shift
  mkfifo "$name.in"
  JOMPD_FACTS="$SCRATCH/$name.facts" JOMPD_HOLD=1 OMP_DEBUG=enabled "$@" <"$name.in" >"$name.out" 2>"$name.err" &
  held_pid=$!
  exec {held_fd}>"$name.in"
  for _ in $(seq 600); do grep -q JOMPD_AT_MARKER "$name.out" 2>/dev/null && break
    kill -0 $held_pid 2>/dev/null || { cat "$name.err" >&2; fail "$name exited before its marker"; }; sleep 0.1; done
  grep -q JOMPD_AT_MARKER "$name.out" || fail "$name never reached its marker"
}
check() { python3 "$CHECKS" "$@"; }   # lwps | gdb-threads | deadlock FACTS FILE: scripts/test-install-checks.py

# a live process, then its core
hold nested "$fx/nested" 3 2
pid=$held_pid keep=$held_fd
"$JOMPD" inspect --pid "$pid" --json > live.json
check lwps nested.facts live.json || fail "inspect --pid"
ok "inspect --pid: the 6 threads the program recorded"
gdb -batch -nx -p "$pid" -ex "gcore $SCRATCH/nested.core" >/dev/null 2>&1 || fail "gcore"
"$JOMPD" inspect --core nested.core --exe "$fx/nested" --json > core.json
check lwps nested.facts core.json || fail "inspect --core"
ok "inspect --core: the same threads"
"$JOMPD" inspect --core nested.core --exe "$fx/nested" --stacks > core.txt
grep -q "jompd_marker" core.txt || fail "inspect --stacks shows no marker frame"
ok "inspect --stacks"
# the gdb bridge on the same core: gdb's thread numbers and libomp's own gtids (__kmp_threads[], by DWARF) are the truth
if [ "$BRIDGE" = auto ]; then bridge=(); else bridge=(-nx -ex "source $BRIDGE"); fi
truth=(-ex 'python print("GDBTHREADS " + " ".join("%d:%d" % (t.num, t.ptid[1]) for t in gdb.selected_inferior().threads()))'
       -ex 'python print("KMPTHREADS " + " ".join("%d:%d" % (g, int(gdb.parse_and_eval("__kmp_threads[%d]->th.th_info.ds.ds_thread" % g))) for g in range(int(gdb.parse_and_eval("__kmp_threads_capacity"))) if int(gdb.parse_and_eval("(long)__kmp_threads[%d]" % g))))')
status=0
gdb -batch "${bridge[@]}" -ex "file $fx/nested" -ex "core-file nested.core" "${truth[@]}" -ex "ompd threads" \
  > gdb.txt 2>&1 || status=$?
[ "$status" = 0 ] || { cat gdb.txt >&2; fail "gdb's ompd threads: gdb exited with $status"; }
check gdb-threads nested.facts gdb.txt || { cat gdb.txt >&2; fail "gdb's ompd threads"; }
ok "gdb: ompd threads has one row per recorded thread, each as the program and libomp say ($BRIDGE)"
# the control: the same gdb without the ompd commands (it still prints [New LWP n] for every thread) must not pass
gdb -batch -nx -ex "file $fx/nested" -ex "core-file nested.core" "${truth[@]}" -ex "ompd threads" > gdb-none.txt 2>&1 || true
! check gdb-threads nested.facts gdb-none.txt 2>/dev/null || { cat gdb-none.txt >&2; fail "the gdb check passes a gdb without jompd"; }
ok "control: the gdb check fails a gdb without jompd"
# jompd as a standard OMPD library: the one `jompd libompd` names is this distribution's own, its engine's classes
# beside it, and it loads as an OMPD library that says it is jompd's (without starting its engine)
lib=$("$JOMPD" libompd --path)
case "$lib" in "$(dirname "$(dirname "$(readlink -f "$(command -v "$JOMPD")")")")"/lib/libompd.so) ;;
  *) fail "jompd libompd --path names $lib, not this distribution's lib/libompd.so" ;; esac
[ -f "$lib" ] && [ -f "$(dirname "$lib")/libompd.jar" ] || fail "no $lib with libompd.jar beside it"
# (python -c: a here-document inside $( ) ends with the substitution, and its lines would run as shell commands)
api=$(python3 -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
version, name = ctypes.c_uint64(), ctypes.c_char_p()
assert lib.ompd_get_api_version(ctypes.byref(version)) == 0 and version.value >= 201811, version.value
assert lib.ompd_get_version_string(ctypes.byref(name)) == 0 and name.value.startswith(b"jompd"), name.value
print(version.value)
' "$lib") || fail "$lib does not load as jompd's OMPD library"
[[ "$api" =~ ^[0-9]{6}$ ]] || fail "$lib answered no OMPD api version: $api"
ok "jompd libompd: $lib loads as an OMPD library (api $api)"
echo >&"$keep" 2>/dev/null || true
wait "$pid" || true
grep -q "JOMPD_RESULT ok" nested.out || fail "nested did not finish well after the inspections"
ok "the inspected program went on and finished well"

# jompd run: a gcc program (libgomp) on jompd's libomp, inspected while it holds
mkfifo run.in
JOMPD_FACTS="$SCRATCH/run.facts" JOMPD_HOLD=1 "$JOMPD" run -- "$fx/nested_gcc" 2 2 <run.in >run.out 2>run.err &
runner=$!
exec {runkeep}>run.in
for _ in $(seq 600); do grep -q JOMPD_AT_MARKER run.out 2>/dev/null && break; sleep 0.1; done
runpid=$(sed -n 's/^JOMPD_AT_MARKER //p' run.out)
[ -n "$runpid" ] || { cat run.err >&2; fail "jompd run: the program never reached its marker"; }
"$JOMPD" inspect --pid "$runpid" --json > run.json
check lwps run.facts run.json || fail "jompd run"
ok "jompd run: the gcc program runs on libomp, its 4 threads read"
echo >&"$runkeep"
wait "$runner" || true
grep -q "JOMPD_RESULT ok" run.out || fail "jompd run: the program did not finish well"

# diagnose a deadlock's core
hold deadlock "$fx/lock_deadlock" nest   # nest locks record their owners (default locks only with KMP_CONSISTENCY_CHECK=all)
pid=$held_pid
gdb -batch -nx -p "$pid" -ex "gcore $SCRATCH/deadlock.core" >/dev/null 2>&1 || fail "gcore deadlock"
{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true
"$JOMPD" diagnose --core deadlock.core --exe "$fx/lock_deadlock" --json > diagnose.json
check deadlock deadlock.facts diagnose.json || { cat diagnose.json >&2; fail "diagnose"; }
ok "diagnose: one deadlock, its threads the $(grep -c '=cycle$' deadlock.facts) the program recorded in its cycle"
echo "ALL CHECKS PASSED"
SCENARIO

# The scenario's checks, each printing one "ok:" line: counted at the end against this number, so a check that
# stops running (skipped, a scenario that ends early) cannot pass unseen. Change it with the scenario's ok lines.
scenario_checks=11
[ "$(grep -c '^ok "' "$work/scenario.sh")" = "$scenario_checks" ] \
  || jompd_die "the scenario has $(grep -c '^ok "' "$work/scenario.sh") ok lines, not $scenario_checks: update scenario_checks"
as_user_without_jdk() { # JOMPD BRIDGE SCRATCH
  mkdir -p "$3" && chown "$user" "$3"
  unshare --mount --propagation private -- bash -c '
    mount -t tmpfs -o mode=755 no-jdk-here /usr/lib/jvm
    exec runuser -u "$0" -- env -i HOME="$1" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 JOMPD_CACHE="$2" \
      JOMPD="$3" BRIDGE="$4" SCRATCH="$5" FIXTURES="$6" CHECKS="$7" bash "$8"' \
    "$user" "$home" "$work/cache" "$1" "$2" "$3" "$work/fixtures" "$work/checks.py" "$work/scenario.sh" \
    | tee "$3.log"
  passed=$(grep -c '^ok: ' "$3.log" || true)
  [ "$passed" = "$scenario_checks" ] || jompd_die "$passed of the scenario's $scenario_checks checks passed ($3)"
}

jompd_log "tarball: unpacked by $user into a fresh directory, no JDK visible"
runuser -u "$user" -- mkdir -p "$home/apps"
runuser -u "$user" -- tar -xzf "$work/$(basename "$tarball")" -C "$home/apps"
image=$(ls -d "$home"/apps/jompd-*)
as_user_without_jdk "$image/bin/jompd" "$image/gdb/jompd.py" "$work/tarball"

jompd_log ".deb: apt install, the same checks with jompd on PATH and the ompd commands in every gdb"
apt-get install -y -q "$deb" >/dev/null
[ "$(readlink -f /usr/bin/jompd)" = /opt/jompd/bin/jompd ] || jompd_die "/usr/bin/jompd is not the package's"
as_user_without_jdk jompd auto "$work/deb"
apt-get remove -y -q jompd >/dev/null
left=$(ls -d /opt/jompd /usr/bin/jompd /usr/bin/jompd-dap /usr/bin/jompd-recorder /etc/gdb/gdbinit.d/jompd.py 2>/dev/null || true)
[ -z "$left" ] || jompd_die "apt remove left: $left"
! dpkg -s jompd >/dev/null 2>&1 || jompd_die "jompd still known to dpkg after removal"
echo "ok: apt remove jompd left nothing behind"
echo "INSTALL CHECKS PASSED"

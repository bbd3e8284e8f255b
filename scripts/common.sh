# Shared helpers for jompd's scripts. Source it; do not run it.
# shellcheck shell=bash

# Where built runtimes live: outside the work tree, reused across clones.
JOMPD_CACHE="${JOMPD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jompd}"
export JOMPD_CACHE

jompd_log() { printf '\033[1m[jompd]\033[0m %s\n' "$*" >&2; }
jompd_die() { printf '[jompd] error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
jompd_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@";
  else jompd_die "need root to run: $* (install sudo or run as root)"; fi
}

# Finds a JDK >= 25 and exports JAVA_HOME and PATH for it.
jompd_select_java() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    version=$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java.specification.version = //p')
    if [ -n "$version" ] && [ "${version%%.*}" -ge 25 ] 2>/dev/null; then
      export JAVA_HOME="$candidate" PATH="$candidate/bin:$PATH"
      return 0
    fi
  done
  jompd_die "jompd needs a JDK 25 or newer and found none (looked at \$JAVA_HOME and /usr/lib/jvm).
  Debian 12 ships no JDK 25: install Eclipse Temurin 25 (package temurin-25-jdk from Adoptium's
  repository) or unpack any JDK 25 and set JAVA_HOME to it."
}

# Prepares a benchmark run of MODULE's test classes: JDK 25, libomp 19, gdb, the module built and
# installed with what it depends on (offline first, online when a plugin is missing locally), and
# private copies of its classes (a concurrent build in the tree must not swap them mid-run).
# Sets JOMPD_BENCH_WORK (a temporary directory, removed at exit) and JOMPD_BENCH_CP (the class path).
jompd_bench_prepare() {
  local module="$1"
  jompd_select_java
  bash scripts/build-runtime.sh 19 >/dev/null
  command -v gdb >/dev/null || jompd_die "gdb is not installed: run scripts/setup-system.sh"
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  mvn -B -ntp -q -o install -DskipTests -pl "$module" -am \
    || mvn -B -ntp -q install -DskipTests -pl "$module" -am
  JOMPD_BENCH_WORK=$(mktemp -d)
  trap 'rm -rf "$JOMPD_BENCH_WORK"' EXIT
  mvn -B -ntp -q -o -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$JOMPD_BENCH_WORK/classpath" >/dev/null 2>&1 \
    || mvn -B -ntp -q -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$JOMPD_BENCH_WORK/classpath"
  cp -r "$module/target/classes" "$JOMPD_BENCH_WORK/classes"
  cp -r "$module/target/test-classes" "$JOMPD_BENCH_WORK/test-classes"
  local distribution
  for distribution in "$module"/target/jompd "$module"/target/jompd-dap; do
    if [ -d "$distribution" ]; then  # -p: same jar time, same class-data archive
      cp -rp "$distribution" "$JOMPD_BENCH_WORK/$(basename "$distribution")"
    fi
  done
  JOMPD_BENCH_CP="$JOMPD_BENCH_WORK/test-classes:$JOMPD_BENCH_WORK/classes:$(cat "$JOMPD_BENCH_WORK/classpath")"
  export JOMPD_BENCH_WORK JOMPD_BENCH_CP
}

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

# The Java discovery every door shares (lib/jompd-java.sh of a distribution; the repository's copy).
JOMPD_JAVA_RULE="$(dirname "${BASH_SOURCE[0]}")/../lib/jompd-java.sh"
[ -f "$JOMPD_JAVA_RULE" ] || JOMPD_JAVA_RULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/jompd-cli/src/main/dist/lib/jompd-java.sh"

# Finds a JDK >= 25 (a Java with javac: Maven builds with it) and exports JAVA_HOME and PATH for it; a Java's
# version by the launchers' own test (jompd_java_major of lib/jompd-java.sh).
jompd_select_java() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    version=$(. "$JOMPD_JAVA_RULE"; jompd_java_major "$candidate/bin/java")
    if [ "$version" -ge 25 ] 2>/dev/null; then
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

# The one list of supported libomp versions (what each column means: its header): ompd-core's resource in
# the repository, or the copy a distribution ships beside this script.
JOMPD_SUPPORTED_RUNTIMES="$(dirname "${BASH_SOURCE[0]}")/supported-runtimes"
[ -f "$JOMPD_SUPPORTED_RUNTIMES" ] || JOMPD_SUPPORTED_RUNTIMES="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/ompd-core/src/main/resources/dev/jompd/core/ompd/supported-runtimes"

# Prints the majors of the supported runtimes, oldest first. With ROLE (default, ci), only those having it;
# with "ci" the default too, as the tests' SupportedRuntimes.tested() does.
jompd_runtimes() {
  local role="${1:-}"
  awk -v role="$role" '!/^[[:space:]]*(#|$)/ {
      n = split($7, roles, ","); keep = (role == "")
      for (i = 1; i <= n; i++) if (roles[i] == role || (role == "ci" && roles[i] == "default")) keep = 1
      if (keep) print $1 }' "$JOMPD_SUPPORTED_RUNTIMES"
}

# Prints one column of a supported runtime's line: jompd_runtime_field MAJOR upstream|source|suite|build|stock|roles.
jompd_runtime_field() {
  local major="$1" column
  case "$2" in upstream) column=2 ;; source) column=3 ;; suite) column=4 ;; build) column=5 ;; stock) column=6 ;;
    roles) column=7 ;; *) jompd_die "no column $2 in the supported-runtimes list" ;; esac
  awk -v major="$major" -v column="$column" '!/^[[:space:]]*(#|$)/ && $1 == major { print $column; found = 1 }
      END { exit !found }' "$JOMPD_SUPPORTED_RUNTIMES" \
    || jompd_die "libomp $major is not in $JOMPD_SUPPORTED_RUNTIMES (supported: $(jompd_runtimes | tr '\n' ' '))"
}

# Prints the majors this run tests, as the tests' SupportedRuntimes does: $JOMPD_RUNTIMES unset or "ci", the
# lines marked ci and the default; "all", every line; else the majors it lists (commas or blanks).
jompd_tested_runtimes() {
  local wanted="${JOMPD_RUNTIMES:-ci}" major
  case "$wanted" in
    ci) jompd_runtimes ci ;;
    all) jompd_runtimes ;;
    *) for major in ${wanted//,/ }; do jompd_runtime_field "$major" upstream >/dev/null; echo "$major"; done ;;
  esac
}

# apt-get and apt-cache over the private source list of sid/trixie (deb-src only) that setup-system.sh keeps in
# the cache: the system's own apt configuration stays untouched.
JOMPD_APT_DIR="$JOMPD_CACHE/apt"
jompd_apt_sid() {
  local tool="$1"; shift
  "$tool" -o Dir::Etc::SourceList="$JOMPD_APT_DIR/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$JOMPD_APT_DIR/lists" -o Dir::Cache="$JOMPD_APT_DIR" -o APT::Sandbox::User=root "$@"
}

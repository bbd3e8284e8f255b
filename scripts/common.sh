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

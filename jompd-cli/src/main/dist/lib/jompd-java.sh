# shellcheck shell=bash
# jompd's one Java discovery and the check of its private cache directory, for every door:
#   sourced by the launchers (bin/jompd, bin/jompd-dap), which then call private_cache and jompd_find_java;
#   run by the gdb bridge (gdb/jompd.py) and the OMPD library (lib/libompd.so) as `bash lib/jompd-java.sh`,
#   which prints the Java to run on (or why there is none, on stderr, exit 70).
# The rule: JOMPD_JAVA when set (it must be a Java >= 25: a wrong one is said, not passed over), else the first
# Java >= 25 of the distribution's own runtime/ (a jlink image), $JAVA_HOME, /usr/lib/jvm/temurin-25-jdk-*,
# /usr/lib/jvm/*, the PATH. A Java's version is its JDK's release file (JAVA_VERSION), else the Java's own answer
# (a JVM start: remembered per binary in the private cache, when there is one).
# Nothing here runs a file another user can write that jompd did not already trust: the cache check below keeps
# the launchers' caches (class archives the JVM runs from) this user's alone (docs/security.md).

jompd_min_java=25

# private_cache DIR: whether DIR (resolved) is this user's alone — owned by the effective uid and not writable by
# its group or others, every directory above it root's or this user's and not writable by others unless sticky
# (/tmp) — else `why` says what is not; made (0700) only under directories that pass. Under `sudo -E` (the user's
# HOME) or with a shared XDG_CACHE_HOME the cache would be another user's to write. One stat for the whole chain.
why=""
unmade=""
private_cache() {
  local dir=$1 existing=$1 p chain=() uid name mode i=0
  while [ ! -e "$existing" ]; do existing=${existing%/*}; existing=${existing:-/}; done
  p=$existing
  while [ -n "$p" ]; do chain+=("$p"); p=${p%/*}; done
  chain+=(/)
  while read -r uid name mode; do
    if [ $i -eq 0 ] && [ "$existing" = "$dir" ]; then
      if [ "$uid" != "$EUID" ]; then why="$dir belongs to user $name (uid $uid), not to uid $EUID that ${jompd_program:-jompd} runs as"; return 1; fi
      if (( 8#$mode & 8#022 )); then why="$dir can be written by its group or others (mode $mode)"; return 1; fi
    else
      if [ "$uid" != 0 ] && [ "$uid" != "$EUID" ]; then
        why="its directory ${chain[$i]} belongs to user $name (uid $uid), who can replace what it holds"; return 1
      fi
      if (( (8#$mode & 8#022) && !(8#$mode & 8#1000) )); then
        why="its directory ${chain[$i]} can be written by its group or others (mode $mode)"; return 1
      fi
    fi
    i=$((i + 1))
  done < <(stat -c '%u %U %a' -- "${chain[@]}" 2>/dev/null)
  if [ $i -ne ${#chain[@]} ]; then why="$dir cannot be checked (stat)"; return 1; fi
  if [ "$existing" != "$dir" ]; then
    # a cache that cannot be made (no home directory: env -i, a service) is no one else's: run without it, silently
    mkdir -p -m 700 -- "$dir" 2>/dev/null || { why="$dir cannot be made"; unmade=1; return 1; }
    private_cache "$dir"
  fi
}

# jompd_java_major JAVA: prints the Java feature version of JAVA (0 when it cannot tell): its JDK's release file
# (bash reads it: no process), else the Java's own answer.
jompd_java_major() {
  local candidate=$1 line version=""
  if [ -r "${candidate%/bin/java}/release" ]; then
    while IFS= read -r line; do
      case $line in JAVA_VERSION=*) version=${line#JAVA_VERSION=}; version=${version//\"/}; break ;; esac
    done < "${candidate%/bin/java}/release"
  fi
  if [ -z "$version" ]; then
    version=$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  fi
  version=${version%%[.+-]*}
  [[ $version =~ ^[0-9]+$ ]] && echo "$version" || echo 0
}

# java_ok JAVA: sets java (and java_stamp: its inode, time and size) when JAVA is a Java >= 25. With a private
# cache ($cache_ok, $cache) a binary's answer is remembered (path, inode, time, size): asked once.
java=""
java_stamp=""
java_ok() {
  local candidate="$1" stamp seen
  [ -x "$candidate" ] || return 1
  stamp=$(stat -Lc %i-%Y-%s "$candidate" 2>/dev/null) || return 1
  seen="${cache:-}/java-ok-${candidate//\//%}-$stamp"
  if [ -z "${cache_ok:-}" ] || [ ! -e "$seen" ]; then
    [ "$(jompd_java_major "$candidate")" -ge "$jompd_min_java" ] 2>/dev/null || return 1
    [ -z "${cache_ok:-}" ] || { : > "$seen"; } 2>/dev/null || true
  fi
  java="$candidate"
  java_stamp="$stamp"
}

# jompd_find_java HERE: sets java (and java_stamp) by the rule above for the distribution at HERE; else returns 1
# with why_java saying what to do.
why_java=""
jompd_find_java() {
  local here=$1 candidate on_path
  if [ -n "${JOMPD_JAVA:-}" ]; then
    java_ok "$JOMPD_JAVA" && return 0
    why_java="JOMPD_JAVA=$JOMPD_JAVA is not a Java $jompd_min_java or newer: point it at a JDK 25's bin/java"
    return 1
  fi
  # An unpacker that drops file modes (a .vsix is a zip) leaves the own runtime's programs unexecutable: give them
  # back (java, and the helper the JVM starts processes with — the DAP server starts gdb).
  if [ -f "$here/runtime/bin/java" ] && [ ! -x "$here/runtime/bin/java" ]; then
    chmod u+x "$here/runtime/bin/"* "$here/runtime/lib/jspawnhelper" 2>/dev/null || true
  fi
  for candidate in "$here/runtime/bin/java" "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/temurin-25-jdk-*/bin/java \
                   /usr/lib/jvm/*/bin/java; do
    [ -n "$candidate" ] && java_ok "$candidate" && return 0
  done
  if on_path=$(command -v java 2>/dev/null) && java_ok "$on_path"; then return 0; fi
  why_java="needs Java $jompd_min_java or newer and found none (JOMPD_JAVA, JAVA_HOME, /usr/lib/jvm, PATH): install"
  why_java+=" Eclipse Temurin 25 (package temurin-25-jdk) or set JAVA_HOME to a JDK 25"
  return 1
}

# Run, not sourced: print the Java for the distribution this file is in (its lib/).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -u
  jompd_here=$(cd "$(dirname "$0")/.." && pwd -P)
  if jompd_find_java "$jompd_here"; then
    printf '%s\n' "$java"
  else
    printf '%s\n' "$why_java" >&2
    exit 70
  fi
fi

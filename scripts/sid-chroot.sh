#!/usr/bin/env bash
# Debian sid in a chroot, for the stock runtime of the newest Debian: sid's libomp5 (LLVM 23, stripped, one
# runtime for every clang there) needs glibc 2.38, which Debian 12 lacks, so programs on it are built and
# run inside with sid's own clang, while jompd reads their cores and live processes from the host.
# Made once with debootstrap from Debian's packages into $JOMPD_CACHE/chroot-sid (about 450 MB).
#
# usage: scripts/sid-chroot.sh                 prints the chroot's root (making it on first use)
#        scripts/sid-chroot.sh run CMD ARG...  runs CMD inside (own mount namespace with /proc; pid as on the host)
set -euo pipefail
. "$(dirname "$0")/common.sh"
root="$JOMPD_CACHE/chroot-sid"
stamp="$root/.jompd-complete"
if [ ! -f "$stamp" ]; then
  [ "$(id -u)" = 0 ] || jompd_die "making the sid chroot needs root (debootstrap, chroot)"
  command -v debootstrap >/dev/null || {
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null || jompd_die "cannot install debootstrap"
  }
  jompd_log "making a Debian sid chroot with clang and libomp-dev in $root (once, a few minutes)"
  rm -rf "$root.tmp"
  debootstrap --variant=minbase --include=clang,libomp-dev sid "$root.tmp" http://deb.debian.org/debian \
    >"$JOMPD_CACHE/chroot-sid.log" 2>&1 || { tail -20 "$JOMPD_CACHE/chroot-sid.log" >&2; jompd_die "debootstrap failed"; }
  rm -rf "$root" && mv "$root.tmp" "$root"
  touch "$stamp"
fi
if [ "${1:-}" = run ]; then
  shift
  # A private mount namespace: /proc inside is mounted for this command only and goes with it.
  exec unshare --mount --propagation private /bin/sh -c \
    'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
fi
echo "$root"

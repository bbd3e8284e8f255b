#!/usr/bin/env bash
# Fetches Debian's own (stripped, OMPD-enabled) libomp5-<MAJOR> without installing it: apt-get download
# plus dpkg -x into $JOMPD_CACHE/debian-libomp5-<MAJOR>, and prints the directory holding libomp.so.5.
# The directory is named after the version, as Debian's /usr/lib/llvm-<MAJOR>/lib is.
#
# usage: scripts/stock-runtimes.sh MAJOR        (bookworm offers 14, 15, 16 and 19)
set -euo pipefail
. "$(dirname "$0")/common.sh"
major="${1:?usage: stock-runtimes.sh MAJOR}"
root="$JOMPD_CACHE/debian-libomp5-$major"
libdir="$root/usr/lib/llvm-$major/lib"
if [ ! -f "$libdir/libomp.so.5" ]; then
  command -v apt-get >/dev/null || jompd_die "apt-get is needed to fetch Debian's libomp5-$major"
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download "libomp5-$major" >/dev/null 2>"$work/log") \
    || { cat "$work/log" >&2; jompd_die "apt-get download libomp5-$major failed"; }
  rm -rf "$root" && mkdir -p "$root"
  dpkg -x "$work"/libomp5-"$major"_*.deb "$root"
  [ -f "$libdir/libomp.so.5" ] || jompd_die "libomp5-$major has no $libdir/libomp.so.5"
fi
# Programs linked with -lomp ask for libomp.so: give them that name beside the real one.
ln -sfn libomp.so.5 "$libdir/libomp.so"
echo "$libdir"

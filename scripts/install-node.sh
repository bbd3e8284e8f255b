#!/usr/bin/env bash
# Installs Node.js 20 with npm, which the VS Code extension's build and tests need (VscodeExtensionIT,
# NodeClientIT; code-server in VscodeBrowserIT and VscodeJobIT runs on node 20 only), unless node 20 and npm
# are already on PATH. Debian 12's own nodejs is 18, so: nodejs.org's official linux-x64 tarball of the newest
# 20.x release, checked against the SHASUMS256.txt published beside it, unpacked into
# PREFIX/lib/nodejs/node-vVERSION-linux-x64 with node, npm and npx linked into PREFIX/bin (before /usr/bin on
# Debian's PATH). No apt repository or signing key is added to the system. The headers come with it
# (include/node: native modules build against them, scripts/install-code-server.sh).
# Called by scripts/setup-system.sh. Needs curl (or wget), xz and sha256sum.
#
# usage: scripts/install-node.sh [PREFIX]        (default /usr/local; root, or sudo, to write there)
#   JOMPD_NODE_DIST  where the releases are (default https://nodejs.org/dist; a mirror of the same layout)
set -euo pipefail
. "$(dirname "$0")/common.sh"
prefix="${1:-/usr/local}"
dist="${JOMPD_NODE_DIST:-https://nodejs.org/dist}/latest-v20.x"

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }
if command -v node >/dev/null && command -v npm >/dev/null && [ "$(node_major node)" = 20 ]; then
  exit 0
fi

fetch() { # URL FILE
  if command -v curl >/dev/null; then curl -fsSL --retry 3 -o "$2" "$1"
  elif command -v wget >/dev/null; then wget -q -O "$2" "$1"
  else jompd_die "curl or wget is needed to download Node.js"; fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch "$dist/SHASUMS256.txt" "$work/SHASUMS256.txt" || jompd_die "cannot download $dist/SHASUMS256.txt"
tarball=$(grep -oE 'node-v20\.[0-9]+\.[0-9]+-linux-x64\.tar\.xz$' "$work/SHASUMS256.txt" | head -1)
[ -n "$tarball" ] || jompd_die "$dist/SHASUMS256.txt names no node-v20.*-linux-x64.tar.xz"
name=${tarball%.tar.xz}
version=${name#node-}
jompd_log "installing Node.js ${version%-linux-x64} from $dist into $prefix/lib/nodejs/$name"
fetch "$dist/$tarball" "$work/$tarball" || jompd_die "cannot download $dist/$tarball"
(cd "$work" && grep -E "  $tarball\$" SHASUMS256.txt | sha256sum --check --strict --quiet -) \
  || jompd_die "$tarball does not match its SHA-256 in $dist/SHASUMS256.txt"
tar -xJf "$work/$tarball" -C "$work"
"$work/$name/bin/node" --version >/dev/null || jompd_die "the unpacked $name/bin/node does not run here"
jompd_as_root mkdir -p "$prefix/lib/nodejs" "$prefix/bin"
jompd_as_root rm -rf "$prefix/lib/nodejs/$name"
jompd_as_root cp -a "$work/$name" "$prefix/lib/nodejs/$name"
jompd_as_root chown -R 0:0 "$prefix/lib/nodejs/$name"
for command in node npm npx; do
  jompd_as_root ln -sfn "../lib/nodejs/$name/bin/$command" "$prefix/bin/$command"
done
hash -r
[ "$(node_major "$prefix/bin/node")" = 20 ] && PATH="$prefix/bin:$PATH" "$prefix/bin/npm" --version >/dev/null \
  || jompd_die "node 20 and npm do not run from $prefix/bin"
on_path=$(command -v node || true)
[ "$on_path" = "$prefix/bin/node" ] || jompd_log "note: node on this PATH is ${on_path:-none}, not $prefix/bin/node"

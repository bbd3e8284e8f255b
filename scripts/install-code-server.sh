#!/usr/bin/env bash
# Installs code-server 4.96.4 (VS Code 1.96.4 served to a browser) from npm into the jompd cache, once:
# $JOMPD_CACHE/code-server-4.96.4 (reused by every clone and run; .jompd-complete marks a finished install).
# The browser test of the VS Code extension (VscodeBrowserIT) runs it in Debian's Chromium.
# Needs node 20 and npm, and from scripts/setup-system.sh: ripgrep, libkrb5-dev and a C++ tool chain.
# Only the npm registry is reached: code-server's lock file points @vscode/proxy-agent at a git URL (the
# registry's 0.27.0 tarball has the same integrity hash, so it is used instead), and @vscode/ripgrep's
# install script would download rg from GitHub (Debian's rg is linked in its place).
# Prints the install directory on stdout. Usage: scripts/install-code-server.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"

version=4.96.4
target="$JOMPD_CACHE/code-server-$version"
if [ -f "$target/.jompd-complete" ]; then
  echo "$target"
  exit 0
fi
command -v node >/dev/null && command -v npm >/dev/null || jompd_die "node 20 and npm are needed for code-server"
[ "$(node -p 'process.versions.node.split(".")[0]')" = 20 ] || jompd_die "code-server $version runs on node 20 only"
command -v rg >/dev/null || jompd_die "ripgrep (rg) is needed: run scripts/setup-system.sh"

jompd_log "installing code-server $version into $target (npm registry only; a few minutes, once)"
work=$(mktemp -d "$JOMPD_CACHE/code-server-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "code-server@$version" >/dev/null && tar xzf "code-server-$version.tgz")
cd "$work/package"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# native modules build against the installed node's headers (Debian's and NodeSource's nodejs ship them in
# /usr/include/node, nodejs.org's tarball in its include/node: scripts/install-node.sh), never against headers
# downloaded from nodejs.org
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir=$node_prefix
fi
# code-server's own server dependencies; argon2 (loaded at start, used for password logins) is built from
# source, as its install script would first download a prebuilt binary from GitHub
npm install --omit=dev --ignore-scripts --no-package-lock >/dev/null
(cd node_modules/argon2 && ../.bin/node-pre-gyp rebuild >/dev/null)

cd lib/vscode
sed -i 's#"resolved": "git+ssh://git@github.com/microsoft/vscode-proxy-agent.git\#[0-9a-f]*"#"resolved": "https://registry.npmjs.org/@vscode/proxy-agent/-/proxy-agent-0.27.0.tgz"#' \
  npm-shrinkwrap.json
grep -q 'proxy-agent-0.27.0.tgz' npm-shrinkwrap.json || jompd_die "code-server's lock file changed: @vscode/proxy-agent not found"
npm install --omit=dev --ignore-scripts >/dev/null
# the native modules the server loads, rebuilt from source for this node (no prebuilt downloads)
npm rebuild @parcel/watcher @vscode/spdlog @vscode/deviceid kerberos native-watchdog node-pty >/dev/null
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --ignore-scripts >/dev/null)

cd "$work"
rm -rf "$target"
mv package "$target"
touch "$target/.jompd-complete"
jompd_log "code-server $version installed"
echo "$target"

#!/usr/bin/env bash
# Builds the VS Code extension offline (after `npm ci` from the committed lock file, which needs only the
# npm registry): compiles the TypeScript, runs the unit tests of the logic that needs no VS Code, bundles
# the jompd DAP server when it has been built (../dap-server/target/jompd-dap), and packages
# jompd-openmp.vsix. Usage: vscode-extension/build.sh [--no-server]
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/@vscode/vsce ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
rm -rf out server
npm run --silent build
npm test
if [ "${1:-}" != "--no-server" ] && [ -x ../dap-server/target/jompd-dap/bin/jompd-dap ]; then
  mkdir -p server
  cp -r ../dap-server/target/jompd-dap/bin ../dap-server/target/jompd-dap/lib server/
  # the jompd-recorder's sources (launch attribute "recorder": built on first use)
  if [ -d ../dap-server/target/jompd-dap/recorder ]; then cp -r ../dap-server/target/jompd-dap/recorder server/; fi
fi
npm run --silent package
echo "built $(pwd)/jompd-openmp.vsix"

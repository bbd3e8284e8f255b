#!/usr/bin/env bash
# Builds the VS Code extension offline (after `npm ci` from the committed lock file, which needs only the
# npm registry): compiles the TypeScript, runs the unit tests of the logic that needs no VS Code, bundles
# the jompd DAP server when it has been built (../dap-server/target/jompd-dap), and packages
# jompd-openmp.vsix. With --platform linux-x64 the bundled server also carries its own Java runtime (a jlink
# image, scripts/jlink-runtime.sh) and the package is VS Code's platform-specific
# jompd-openmp-linux-x64.vsix: installing the extension is all a user does, no JDK needed.
# Usage: vscode-extension/build.sh [--no-server | --platform linux-x64]
set -euo pipefail
cd "$(dirname "$0")"
platform=""
if [ "${1:-}" = "--platform" ]; then
  platform="${2:?--platform needs a VS Code target (linux-x64)}"
  [ "$platform" = linux-x64 ] || { echo "build.sh: only linux-x64 is built (jompd reads x86-64 Linux targets)" >&2; exit 2; }
fi
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
  if [ -n "$platform" ]; then bash ../scripts/jlink-runtime.sh server/runtime; fi
elif [ -n "$platform" ]; then
  echo "build.sh: --platform needs the built server (../dap-server/target/jompd-dap: mvn install first)" >&2; exit 2
fi
if [ -n "$platform" ]; then
  npx vsce package --no-dependencies --skip-license --allow-missing-repository --target "$platform" \
      -o "jompd-openmp-$platform.vsix"
  echo "built $(pwd)/jompd-openmp-$platform.vsix"
else
  npm run --silent package
  echo "built $(pwd)/jompd-openmp.vsix"
fi

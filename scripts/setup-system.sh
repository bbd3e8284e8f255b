#!/usr/bin/env bash
# Installs the system packages jompd's build and tests need (Debian/Ubuntu), once.
# Idempotent: does nothing when everything is already present.
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=(clang-19 llvm-19-tools gfortran cmake ninja-build gdb gdbserver lldb-19 python3 dpkg-dev xz-utils file binutils maven
  make clang-tools-19 libomp-19-dev) # make: the recorder; the last two: host offload (recorder_offload)
# debuginfod: the real server the debug-file tests serve a stripped libomp's debug file from.
packages+=(debuginfod)
# the VS Code browser test (VscodeBrowserIT): Chromium, and for code-server (scripts/install-code-server.sh)
# Debian's rg instead of a GitHub download, and what its native modules build with
packages+=(chromium ripgrep libkrb5-dev build-essential pkg-config)
# libc6-dbg: glibc's separate debug files, so that the native-stack tests see glibc as gdb does
packages+=(libc6-dbg)
# jompd job: a real Slurm cluster of emulated nodes (scripts/slurm-cluster.sh) and Open MPI for the hybrid fixtures
packages+=(slurm-wlm munge openmpi-bin libopenmpi-dev libpmix-bin)
# curl: Node.js 20 (scripts/install-node.sh, below)
packages+=(curl ca-certificates)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  jompd_log "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  jompd_as_root apt-get update -qq
  jompd_as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Source packages of LLVM are fetched with apt-get source: that needs deb-src entries.
if ! apt-get indextargets 2>/dev/null | grep -q 'Identifier: Sources'; then
  jompd_log "enabling deb-src entries for apt-get source"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      | jompd_as_root tee /etc/apt/sources.list.d/jompd-deb-src.sources >/dev/null
  else
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
      | jompd_as_root tee /etc/apt/sources.list.d/jompd-deb-src.list >/dev/null
  fi
  jompd_as_root apt-get update -qq
fi
# libomp 21 and newer come from sid/trixie (the supported-runtimes list's suite column): a private deb-src list
# of those suites in the cache, read by build-runtime.sh through jompd_apt_sid, so the system's apt sources
# stay bookworm's. The mirror serves only the upstream tarballs there (apt-get source --tar-only).
if grep -Eq '^[0-9]+[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+sid[[:space:]]' "$JOMPD_SUPPORTED_RUNTIMES" \
    && ! ls "$JOMPD_APT_DIR"/lists/*_sid_main_source_Sources* >/dev/null 2>&1; then
  jompd_log "adding a private deb-src list of sid and trixie in $JOMPD_APT_DIR"
  mkdir -p "$JOMPD_APT_DIR/lists/partial" "$JOMPD_APT_DIR/archives/partial"
  for suite in sid trixie; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
  done >"$JOMPD_APT_DIR/sources.list"
  jompd_apt_sid apt-get update -qq
fi
# Node.js 20 and npm for the VS Code extension and its tests (Debian 12's nodejs is 18): unless already there
bash "$(dirname "$0")/install-node.sh"
jompd_select_java
jompd_log "system ready: $(clang-19 --version | head -1); gdb $(gdb --version | head -1 | awk '{print $NF}'); java $(java -version 2>&1 | head -1); node $(node --version)"

#!/usr/bin/env bash
# The full runtime matrix: every test parameterised by runtime on every libomp of the supported-runtimes list
# (CI, scripts/test.sh, runs only the oldest, the newest and the default), plus Debian sid's stock libomp5 in a
# sid chroot (SidStockRuntimeIT; scripts/sid-chroot.sh makes it once, about 450 MB). Builds the runtimes it
# lacks first (a minute or two each on a quiet machine, once).
# Arguments go to Maven, e.g. -pl ompd-core -am -Dit.test=StrippedRuntimeIT -Dfailsafe.failIfNoSpecifiedTests=false
set -euo pipefail
cd "$(dirname "$0")/.."
export JOMPD_RUNTIMES=all JOMPD_SID_CHROOT=1
bash scripts/sid-chroot.sh >/dev/null
exec bash scripts/test.sh "$@"

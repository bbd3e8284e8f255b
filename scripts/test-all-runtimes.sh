#!/usr/bin/env bash
# The full runtime matrix: every test parameterised by runtime on every libomp of the supported-runtimes list
# (CI, scripts/test.sh, runs the oldest, the newest and the default). Builds the runtimes it lacks first
# (a minute or two each, once). Arguments go to Maven, e.g. -pl ompd-core -am -Dit.test='StrippedRuntimeIT'.
set -euo pipefail
cd "$(dirname "$0")/.."
export JOMPD_RUNTIMES=all
exec bash scripts/test.sh "$@"

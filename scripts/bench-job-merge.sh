#!/usr/bin/env bash
# Benchmark: the front end's merge of a job's node summaries alone, up to 16,384 nodes x 64 ranks. The
# summaries are derived from real ones (the rank views of real cores of hang fixtures), perturbed, and
# streamed as the framed lines node agents write (NodeMessages: gzip, base64, lines of <= 1,000 bytes); each
# is decoded and merged as it comes. Prints time, time
# per node, peak heap, wire bytes per node summary and the classes found, per job size. The heap is capped
# (-Xmx128m) to show that memory is bounded by what differs, not by the number of ranks.
# usage: scripts/bench-job-merge.sh [MAX_NODES (16384)] [RANKS_PER_NODE (64)]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
jompd_bench_prepare job
java -Xmx128m --enable-native-access=ALL-UNNAMED -cp "$JOMPD_BENCH_CP" dev.jompd.job.bench.JobMergeBenchmark \
  "${1:-16384}" "${2:-64}"

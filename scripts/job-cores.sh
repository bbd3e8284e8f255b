#!/usr/bin/env bash
# Cores of every rank of a running (hung) Slurm job step, for `jompd job --cores DIR`: one gcore per rank,
# taken on each node through the job's own fan-out (srun --overlap into the job, one task per node; each
# node finds its ranks with scontrol listpids). The ranks keep running. Files: DIR/core.<node>.<pid>;
# `jompd job --cores DIR` takes each one's rank from the process's environment in the core.
#   scripts/job-cores.sh JOBID.STEP DIR
# The other way, which ends the job: with core dumps on in the job (ulimit -c unlimited before srun, and a
# core_pattern that writes files), `scancel --signal=ABRT JOBID` makes every rank dump where it stands.
set -euo pipefail
step=${1:?usage: job-cores.sh JOBID.STEP DIR}
dir=${2:?usage: job-cores.sh JOBID.STEP DIR}
job=${step%%.*}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
nodes=$(squeue -h -s -j "$job" -o '%i %N' | awk -v s="$step" '$1 == s {print $2}')
[ -n "$nodes" ] || { echo "job-cores.sh: no running step $step" >&2; exit 2; }
count=$(scontrol show hostnames "$nodes" | wc -l)
# MALLOC_ARENA_MAX and gcore's own options do not shrink a core already in memory; gcore writes what is mapped.
srun --overlap --jobid="$job" --nodelist="$nodes" -N "$count" --ntasks-per-node=1 --quiet sh -c '
  for pid in $(scontrol listpids "$0" "$SLURMD_NODENAME" | awk "NR > 1 {print \$1}"); do
    case "$(cat /proc/$pid/comm 2>/dev/null)" in orted|prted|hydra_pmi_proxy|"") continue ;; esac
    gdb -batch -nx -p "$pid" -ex "gcore $1/core.$SLURMD_NODENAME.$pid" >/dev/null 2>&1 \
      || echo "job-cores.sh: no core of pid $pid on $SLURMD_NODENAME" >&2
  done' "$step" "$dir"
ls "$dir"

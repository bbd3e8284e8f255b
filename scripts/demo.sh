#!/usr/bin/env bash
# The main job. Sets up everything (system packages, an OMPD-enabled libomp, the jompd distribution),
# then: an OpenMP fixture program reaches its marker and holds there; jompd inspects it live (ptrace,
# then lets it go on); gdb takes a core of the same state; jompd inspects the core; the program is
# released and finishes with its own correctness check.
# usage: scripts/demo.sh [fixture [args...]]     default: nested 3 2   (see FIXTURES.md)
#        scripts/demo.sh job                      a hung hybrid MPI+OpenMP job on a Slurm cluster of 4 emulated
#                                                 nodes (started and stopped here, needs root): jompd job
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
bash scripts/setup-system.sh
jompd_select_java
runtime=$(bash scripts/build-runtime.sh 19)
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
jompd_log "building jompd (mvn install -DskipTests)"
mvn -B -ntp -q install -DskipTests
jompd=jompd-cli/target/jompd/bin/jompd

if [ "${1:-}" = job ]; then
  # A Slurm cluster of 4 emulated nodes on this host, a hybrid job of 8 ranks x 4 threads where rank 1
  # deadlocks (a lock and a barrier) while the others wait for it in an MPI allreduce; jompd job shows it.
  work=$(mktemp -d /tmp/jompd-demo-job.XXXXXX); chmod 755 "$work" # munged (user munge) reaches its socket below
  make -s -C test-programs/src/main/c RT="$runtime" OUT="$work" "$work/mpi_hybrid" >/dev/null
  cluster="$work/cluster"
  trap 'scancel --quiet --partition=debug 2>/dev/null; sleep 2; bash scripts/slurm-cluster.sh stop "$cluster"; rm -rf /dev/shm/jompd-demo-job-*' EXIT
  jompd_log "starting a Slurm cluster of 4 emulated nodes (munged, slurmctld, 4 slurmd) in $cluster"
  bash scripts/slurm-cluster.sh start "$cluster" 4 "$((21000 + RANDOM % 200 * 10))" >/dev/null
  export SLURM_CONF="$cluster/slurm.conf"
  mkdir -p "$work/facts"
  jompd_log "srun --mpi=pmix -N4 --ntasks-per-node=2 mpi_hybrid lock_barrier 4: rank 1 will deadlock"
  OMP_DEBUG=enabled KMP_BLOCKTIME=0 OMPI_MCA_mpi_yield_when_idle=0 OMPI_MCA_btl_tcp_if_include=lo \
    OMPI_MCA_oob_tcp_if_include=lo MALLOC_ARENA_MAX=2 JOMPD_FACTS_DIR="$work/facts" \
    srun --mpi=pmix -J demo -N4 --ntasks-per-node=2 sh -c \
    'export OMPI_MCA_btl_vader_backing_directory=/dev/shm/jompd-demo-job-$SLURM_JOB_ID-$SLURMD_NODENAME; mkdir -p $OMPI_MCA_btl_vader_backing_directory; exec "$@"' \
    rank "$work/mpi_hybrid" lock_barrier 4 >"$work/job.out" 2>&1 &
  until [ "$(ls "$work/facts" | wc -l)" -ge 8 ]; do sleep 0.2; done
  sleep 0.5
  job=$(squeue -h -n demo -o %i)
  squeue
  jompd_log "the job hangs. jompd job --slurm $job: one agent per node, inside the job, every rank in one picture"
  "$jompd" job --slurm "$job"
  jompd_log "cores of every rank (scripts/job-cores.sh: gcore per rank through the same fan-out), then jompd job --cores"
  bash scripts/job-cores.sh "$job.0" "$work/cores" >/dev/null
  "$jompd" job --cores "$work/cores" --json | head -c 600; echo " ..."
  rm -rf "$work/cores"
  jompd_log "done: the job is cancelled and the cluster stopped"
  exit 0
fi

fixture="${1:-nested}"; shift || true
[ $# -gt 0 ] || { [ "$fixture" = nested ] && set -- 3 2; }
work=$(mktemp -d /tmp/jompd-demo.XXXXXX)
make -s -C test-programs/src/main/c RT="$runtime" OUT="$work" "$work/$fixture" >/dev/null

# Start the program held at its marker: it prints JOMPD_AT_MARKER <pid> and waits for a line on stdin.
mkfifo "$work/stdin"
OMP_DEBUG=enabled JOMPD_HOLD=1 "$work/$fixture" "$@" <"$work/stdin" >"$work/stdout" 2>"$work/stderr" &
program=$!
exec 3>"$work/stdin"
trap 'exec 3>&-; kill $program 2>/dev/null || true' EXIT
until grep -q JOMPD_AT_MARKER "$work/stdout" 2>/dev/null; do
  kill -0 $program 2>/dev/null || { cat "$work/stderr" >&2; jompd_die "$fixture exited before its marker"; }
  sleep 0.1
done

jompd_log "$fixture $* (pid $program) holds at its marker; jompd inspects it live"
"$jompd" inspect --pid "$program" || jompd_log "live inspection failed (exit $?): see above"

jompd_log "taking a core of the same state with gdb, then inspecting the core"
gdb -batch -nx -p "$program" -ex "gcore $work/core" >/dev/null 2>&1
"$jompd" inspect --core "$work/core" --exe "$work/$fixture" --stacks
jompd_log "why the threads wait: $jompd diagnose --core $work/core"
"$jompd" diagnose --core "$work/core" --exe "$work/$fixture"

echo >&3
wait $program || true
jompd_log "program released: $(grep JOMPD_RESULT "$work/stdout")"
jompd_log "JSON of the same report: $jompd inspect --core $work/core --json"

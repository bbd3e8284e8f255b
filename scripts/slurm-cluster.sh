#!/usr/bin/env bash
# A real Slurm cluster of N emulated nodes on this one host (Slurm's multiple-slurmd mode on loopback):
# its own munged (own socket), slurmctld and N slurmd, a generated slurm.conf in DIR, every daemon
# started here and stopped by its pid. Used by the tests (testkit SlurmCluster), the demo and the
# benchmark. The settings and the fixes emulated nodes need are those of docs/scale.md (shared docs).
#
#   scripts/slurm-cluster.sh start DIR NODES [PORT_BASE]   prints "ready" when sinfo shows NODES idle nodes
#   scripts/slurm-cluster.sh stop DIR                       stops the daemons DIR's pid files name
#   scripts/slurm-cluster.sh env DIR                        prints the exports a client needs (SLURM_CONF)
#
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and munge (scripts/setup-system.sh).
set -euo pipefail

command=${1:?usage: slurm-cluster.sh start|stop|env DIR [NODES [PORT_BASE]]}
dir=${2:?usage: slurm-cluster.sh start|stop|env DIR [NODES [PORT_BASE]]}

stop_pidfile() { # stop the process a pid file names, if it is still the daemon we started
  local file=$1 name=$2 pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  if [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$name" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

case "$command" in
  env)
    echo "export SLURM_CONF=$dir/slurm.conf"
    exit 0 ;;
  stop)
    for f in "$dir"/run/slurmd-*.pid; do [ -e "$f" ] && stop_pidfile "$f" slurmd; done
    stop_pidfile "$dir/run/slurmctld.pid" slurmctld
    stop_pidfile "$dir/run/munged.pid" munged
    exit 0 ;;
  start) ;;
  *) echo "slurm-cluster.sh: unknown command $command" >&2; exit 2 ;;
esac

nodes=${3:?usage: slurm-cluster.sh start DIR NODES [PORT_BASE]}
port_base=${4:-17000}
for tool in munged slurmctld slurmd sinfo srun; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] \
    || { echo "slurm-cluster.sh: $tool is not installed (scripts/setup-system.sh installs slurm-wlm and munge)" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-cluster.sh: needs root (slurmd starts job steps as their users)" >&2; exit 3; }

mkdir -p "$dir"/{run,log,spool,tmp,munge} # DIR and its parents must be searchable by user munge
dir=$(cd "$dir" && pwd)
chmod 755 "$dir" # munged runs as user munge: it must reach its socket directory below
host=$(hostname -s)

# munge: its own daemon and socket, so that this cluster neither needs nor disturbs a system munged.
chown munge:munge "$dir/munge"
chmod 755 "$dir/munge" # munged wants its socket directory searchable by all
runuser -u munge -- /usr/sbin/munged --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --key-file=/etc/munge/munge.key
for _ in $(seq 50); do [ -s "$dir/munge/munged.pid" ] && break; sleep 0.1; done
cp "$dir/munge/munged.pid" "$dir/run/munged.pid"

{
  echo "ClusterName=jompd"
  echo "SlurmctldHost=$host(127.0.0.1)"
  echo "SlurmctldPort=$port_base"
  echo "AuthType=auth/munge"
  echo "AuthInfo=socket=$dir/munge/munge.socket"
  echo "CredType=cred/munge"
  echo "SlurmUser=root"
  echo "SlurmdUser=root"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_CPU"
  echo "SlurmdParameters=config_overrides"
  echo "MpiDefault=none"
  echo "SwitchType=switch/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "JobCompType=jobcomp/none"
  echo "ReturnToService=2"
  echo "StateSaveLocation=$dir/spool/ctld"
  echo "SlurmdSpoolDir=$dir/spool/%n"
  echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
  echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
  echo "SlurmctldLogFile=$dir/log/slurmctld.log"
  echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
  echo "TmpFS=$dir/tmp/%n"
  echo "KillWait=2"
  echo "MinJobAge=30"
  echo "InactiveLimit=0"
  echo "NodeName=n[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((port_base + 1))-$((port_base + nodes))] CPUs=16 RealMemory=4000 State=UNKNOWN"
  echo "PartitionName=debug Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
} >"$dir/slurm.conf"
mkdir -p "$dir/spool/ctld"
for n in $(seq "$nodes"); do mkdir -p "$dir/tmp/n$n" "$dir/spool/n$n"; done

export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld -c -f "$dir/slurm.conf"
for n in $(seq "$nodes"); do /usr/sbin/slurmd -N "n$n" -f "$dir/slurm.conf"; done

for _ in $(seq 300); do
  idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l || true)
  if [ "$idle" -ge "$nodes" ]; then echo ready; exit 0; fi
  sleep 0.1
done
echo "slurm-cluster.sh: the cluster in $dir did not show $nodes idle nodes in 30 s:" >&2
sinfo -N >&2 || true
tail -5 "$dir"/log/*.log >&2 || true
exit 1

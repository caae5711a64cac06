#!/bin/sh
# Bring up a single-node Slurm on this machine (as root): munge for
# authentication, slurmctld and slurmd with a minimal slurm.conf for
# `hostname -s`, one partition `workbench` of all CPUs.  Idempotent: a
# running cluster is left as it is.  Try a sweep on a laptop with
#
#   sudo tests/sweep/slurm_up.sh
#   workbench sweep my_study.lua --slurm --submit && workbench sweep my_study.lua --merge
#
# Debian packages: slurm-wlm munge.  `slurm_up.sh down` stops the daemons.
set -eu

conf=/etc/slurm/slurm.conf
node=$(hostname -s)
cpus=$(nproc)

need() { command -v "$1" >/dev/null 2>&1 || { echo "slurm_up: $1 not found (apt-get install slurm-wlm munge)" >&2; exit 2; }; }

if [ "${1:-up}" = down ]; then
    pkill -x slurmd 2>/dev/null || true
    pkill -x slurmctld 2>/dev/null || true
    pkill -x munged 2>/dev/null || true
    exit 0
fi

[ "$(id -u)" = 0 ] || { echo "slurm_up: run as root" >&2; exit 2; }
for tool in munged slurmctld slurmd sinfo sbatch; do need "$tool"; done

if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "slurm_up: a cluster is already up"
    exit 0
fi

# munge: its key exists after the package's install; the daemon runs as munge
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
fi
pgrep -x munged >/dev/null || su -s /bin/sh munge -c munged

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > "$conf" <<CONF
ClusterName=workbench
SlurmctldHost=$node
AuthType=auth/munge
CryptoType=crypto/munge
SlurmUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=workbench Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
# cgroup plugins are not used; an empty cgroup.conf keeps slurmd quiet
[ -f /etc/slurm/cgroup.conf ] || : > /etc/slurm/cgroup.conf

pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for i in $(seq 1 60); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
        echo "slurm_up: node $node ($cpus CPUs) up, partition workbench"
        exit 0
    fi
    sleep 0.5
done
echo "slurm_up: the node did not come up; logs in /var/log/slurm/" >&2
sinfo >&2 || true
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1

#!/bin/bash
# contrib/slurm/rocmcheck-healthcheck as a real Slurm's HealthCheckProgram:
# a single-node Slurm (Debian's slurm-wlm, with munge) on 127.0.0.1, all
# state under the test's folder, checking a sysroot fixture every 2 s. The
# node is rcnode1 (NodeHostname is the host), so the wrapper must take the
# name from SLURMD_NODENAME, not hostname -s.
#   - a CPU node (the fixture's slurm.conf gives it no GRES gpu) stays up;
#   - a failing fixture drains the node with "rocmcheck: <check>: <summary>";
#   - a failing health check (Xid 79, a hot idle GPU) with its check, GPU
#     and quoted line, once;
#   - a GPU missing from PCI (gres.conf says 8, 7 answer) with
#     "device.present: expected 8 GPUs, found 7";
#   - a healthy one resumes it;
#   - with ROCMCHECK_REPEAT=3 a failing fixture leaves the node up on the
#     first and second run and drains it on the third; a pass resumes it;
#   - a node an admin drained stays drained with the admin's reason, failing
#     or healthy;
#   - the prolog, on the node configured with a GPU (Gres=gpu:1): a job that
#     asks for no GPU runs and is not probed.
# Skips, saying why, when Slurm or munge is missing or slurmctld cannot start.
. "$(dirname "$0")/lib.sh"
unset SLURMD_NODENAME SLURM_NODE SLURM_JOB_GPUS SLURM_STEP_GPUS

# The prolog, without Slurm: PROLOG_ENV... FIXTURE; status in $STATUS
prolog() {
	local fx=$1
	shift
	ntests=$((ntests + 1))
	env "$@" SLURM_JOB_ID=7 ROCMCHECK="$ROCMCHECK" ROCMCHECK_ARGS="--sysroot $TESTS_DIR/fixtures/$fx" \
		"$SOURCE_DIR/contrib/slurm/rocmcheck-prolog" >"$OUT" 2>"$ERR"
	STATUS=$?
}
# a failing job GPU: exit 1 and the first failing check
prolog amd-rx7900xtx-ubuntu2204-norender SLURM_JOB_GPUS=0
[ "$STATUS" = 1 ] || fail "prolog on a failing machine: exit $STATUS, expected 1"
grep -q 'rocmcheck-prolog: job 7 (GPUs 0): GPU check failed (exit 1): Access to /dev/kfd: user alice cannot open' "$ERR" ||
	{ fail "prolog on a failing machine"; last; }
# a job GPU the node does not have: which, and what the node has
prolog amd-rx7900xtx-ubuntu2204-healthy SLURM_JOB_GPUS=3
[ "$STATUS" = 1 ] || fail "prolog, no GPU 3: exit $STATUS, expected 1"
grep -qF 'rocmcheck-prolog: job 7 (GPUs 3): GPU check failed (exit 2): --gpu: there is no GPU 3 (GPU 0 only;' "$ERR" ||
	{ fail "prolog, no GPU 3"; last; }
prolog nvidia-h100x8-ubuntu2204-gpumissing SLURM_JOB_GPUS=2,7
grep -qF '(GPUs 2,7): GPU check failed (exit 2): --gpu: there is no GPU 7 (GPUs here: 0-6;' "$ERR" || { fail "prolog, no GPU 7"; last; }
prolog amd-rx7900xtx-ubuntu2204-healthy SLURM_JOB_GPUS=0
[ "$STATUS" = 0 ] || { fail "prolog on a healthy machine: exit $STATUS"; last; }
prolog amd-rx7900xtx-ubuntu2204-norender ROCR_VISIBLE_DEVICES=0
[ "$STATUS" = 1 ] || fail "prolog, ROCR_VISIBLE_DEVICES only: exit $STATUS, expected 1"
# a job without a GPU: not probed (a failing machine, a rocmcheck that fails)
prolog amd-rx7900xtx-ubuntu2204-norender ROCMCHECK=false
[ "$STATUS" = 0 ] && [ ! -s "$ERR" ] || { fail "prolog, a job without a GPU: exit $STATUS"; last; }

for tool in slurmctld slurmd scontrol srun munged mungekey; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (ci/test-deps installs slurm-wlm and munge)"; exit 77; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the test Slurm runs as root (SlurmUser=root)"
	exit 77
fi

S=$T/slurm
mkdir -p "$S/state" "$S/spool"
host=$(hostname -s)
node=rcnode1
pids=""
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -f "$S/munged.pid" ] && kill "$(cat "$S/munged.pid")" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT

mungekey -c -k "$S/munge.key" || { echo "SKIP: mungekey failed"; exit 77; }
munged --force -S "$S/munge.sock" --key-file "$S/munge.key" --pid-file "$S/munged.pid" \
	--log-file "$S/munged.log" --seed-file "$S/munge.seed" || { echo "SKIP: munged cannot start"; exit 77; }

# The health check slurmd runs: the wrapper on whatever $S/node points to,
# with the environment in $S/hc.env. With a state file, each run also logs
# perm.kfd's failing runs, the wrapper's exit status and the node's state
# after it to $S/runs.log.
ln -sfn "$TESTS_DIR/fixtures/none-server-debian12-slurmcpu" "$S/node"
: >"$S/hc.env"
cat >"$S/hc" <<HC
#!/bin/sh
. '$S/hc.env'
ROCMCHECK='$ROCMCHECK' ROCMCHECK_ARGS='--sysroot $S/node' SCONTROL=scontrol \
SLURM_CONF='$S/slurm.conf' PATH=/usr/sbin:/usr/bin:/sbin:/bin \
'$SOURCE_DIR/contrib/slurm/rocmcheck-healthcheck' >>'$S/hc.log' 2>&1
rc=\$?
echo "\$(basename "\$(readlink '$S/node')") exit \$rc" >>'$S/hc.runs'
if [ -n "\${ROCMCHECK_STATE:-}" ]; then
	runs=\$(awk '\$1 == "fail" && \$2 == "perm.kfd" { print \$4 }' "\$ROCMCHECK_STATE" 2>/dev/null)
	state=\$(SLURM_CONF='$S/slurm.conf' scontrol show node '$node' | grep -o 'State=[A-Z_+]*')
	echo "perm.kfd \${runs:-0} exit \$rc \$state" >>'$S/runs.log'
fi
exit \$rc
HC
chmod +x "$S/hc"

# The prolog slurmd runs: the wrapper with the environment in $S/prolog.env;
# $S/prolog.log gets each rocmcheck it runs and, per job, its exit status.
cat >"$S/rocmcheck" <<RC
#!/bin/sh
echo "rocmcheck \$*" >>'$S/prolog.log'
exec '$ROCMCHECK' "\$@"
RC
cat >"$S/prolog" <<PROLOG
#!/bin/sh
. '$S/prolog.env'
ROCMCHECK='$S/rocmcheck' PATH=/usr/sbin:/usr/bin:/sbin:/bin '$SOURCE_DIR/contrib/slurm/rocmcheck-prolog' 2>>'$S/prolog.log'
rc=\$?
echo "job \$SLURM_JOB_ID gpus '\${SLURM_JOB_GPUS:-}' exit \$rc" >>'$S/prolog.log'
exit \$rc
PROLOG
chmod +x "$S/rocmcheck" "$S/prolog"
: >"$S/prolog.env"
# the node's one GPU, as far as Slurm knows (a device file that exists)
echo "NodeName=$node Name=gpu File=/dev/null" >"$S/gres.conf"
: >"$S/hc.runs"

free_port() {
	"$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
cat >"$S/slurm.conf" <<CONF
ClusterName=rocmchecktest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge.sock
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
HealthCheckProgram=$S/hc
HealthCheckInterval=2
Prolog=$S/prolog
GresTypes=gpu
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm.conf

slurmctld -D >"$S/ctld.out" 2>&1 &
pids="$pids $!"
for _ in $(seq 50); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
if ! scontrol ping >/dev/null 2>&1; then
	echo "SKIP: slurmctld cannot start here:"
	tail -5 "$S/slurmctld.log" "$S/ctld.out" 2>/dev/null
	exit 77
fi
slurmd -D >"$S/d.out" 2>&1 &
pids="$pids $!"

# wait_for WHAT PATTERN: scontrol show node matches PATTERN within 30 s
wait_for() {
	ntests=$((ntests + 1))
	for _ in $(seq 150); do
		scontrol show node "$node" >"$S/node.txt" 2>&1
		grep -Eq "$2" "$S/node.txt" && return 0
		sleep 0.2
	done
	fail "$1: no '$2' in 30 s"
	cat "$S/node.txt" >&2
	tail -5 "$S/hc.log" >&2 2>/dev/null
	return 1
}

# after_runs FIXTURE N: N more health checks have ended on FIXTURE than when
# called (within 30 s): what a fixed sleep hoped for, without its wait.
after_runs() {
	local want=$(($(grep -c "^$1 exit" "$S/hc.runs") + $2))
	for _ in $(seq 150); do
		[ "$(grep -c "^$1 exit" "$S/hc.runs")" -ge "$want" ] && return 0
		sleep 0.2
	done
	fail "$2 more health checks on $1: not within 30 s"
}

# A CPU node: two health checks pass and leave it up.
cpu_runs() { grep -c '^none-server-debian12-slurmcpu exit 0' "$S/hc.runs"; }
for _ in $(seq 50); do [ "$(cpu_runs)" -ge 2 ] && break; sleep 0.2; done
wait_for "CPU node up" 'State=IDLE '
ntests=$((ntests + 1))
[ "$(cpu_runs)" -ge 2 ] && ! grep -q 'Reason=' "$S/node.txt" ||
	{ fail "CPU node: $(cat "$S/hc.runs" "$S/hc.log" 2>&1)"; }
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender" "$S/node"
wait_for "failing fixture" 'State=[A-Z+]*DRAIN'
wait_for "drain reason" 'Reason=rocmcheck: perm.kfd: user alice cannot open /dev/kfd read-write'

ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" "$S/node"
wait_for "healthy fixture" 'State=IDLE '
grep -q 'Reason=' "$S/node.txt" && fail "the resumed node still has a reason"
grep -q "$node passes again; resumed" "$S/hc.log" || fail "the wrapper did not say it resumed the node"

# A GPU that fell off the bus (Xid 79): the reason names the health check,
# the GPU's index and PCI address and quotes the log line, closing quote
# included; later checks for the same reason leave the drain as it is.
ln -sfn "$TESTS_DIR/fixtures/nvidia-rtx4090-ubuntu2204-xid79" "$S/node"
wait_for "xid79 drain reason" \
	'Reason=rocmcheck: health\.kernel_log: gpu 0 \(0000:01:00\.0\): Xid 79: "NVRM: Xid \(PCI:0000:01:00\): 79, .*GPU has fallen off the bus\." \['
after_runs nvidia-rtx4090-ubuntu2204-xid79 2
ntests=$((ntests + 1))
[ "$(grep -c 'drained .*Xid 79' "$S/hc.log")" = 1 ] || fail "the Xid 79 drain was made again: $(grep 'Xid 79' "$S/hc.log")"
# A hot idle GPU: the thermal finding replaces it.
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-hotidle" "$S/node"
wait_for "hotidle drain reason" \
	'Reason=rocmcheck: health\.thermal: gpu 0 \(0000:03:00\.0\): junction at 106 °C, within 5 °C of its critical 110 °C \(0 % busy\) \['
# A GPU gone from PCI leaves no log line: the fixture's gres.conf gives its
# node 8 GPUs, 7 answer, and the reason gives the count.
ln -sfn "$TESTS_DIR/fixtures/nvidia-h100x8-ubuntu2204-gpumissing" "$S/node"
wait_for "gpumissing drain reason" 'Reason=rocmcheck: device\.present: expected 8 GPUs, found 7 \['
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" "$S/node"
wait_for "healthy again" 'State=IDLE '

# Repeat before failing: with ROCMCHECK_REPEAT=3 the failing fixture leaves
# the node up on its first and second failing run, and drains it on the
# third (runs.log: "perm.kfd RUNS exit STATUS State=..." after each run).
printf 'export ROCMCHECK_REPEAT=3 ROCMCHECK_STATE=%s\n' "$S/rc-state/state" >"$S/hc.env"
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender" "$S/node"
wait_for "repeat: drained on the third run" 'Reason=rocmcheck: perm.kfd: user alice'
# the run that drained it logs once scontrol has answered
for _ in $(seq 50); do grep -q '^perm\.kfd 3 ' "$S/runs.log" && break; sleep 0.2; done
ntests=$((ntests + 1))
before=$failures
grep -Eq '^perm\.kfd 1 exit 0 State=IDLE' "$S/runs.log" || fail "repeat: the first failing run did not leave the node up"
grep -Eq '^perm\.kfd 2 exit 0 State=IDLE' "$S/runs.log" || fail "repeat: the second failing run did not leave the node up"
grep -Eq '^perm\.kfd 3 exit 1 State=[A-Z_+]*DRAIN' "$S/runs.log" || fail "repeat: the third failing run did not drain the node"
grep -Eq '^perm\.kfd [12] .*DRAIN' "$S/runs.log" && fail "repeat: drained before the third failing run"
[ "$(grep -c '^perm\.kfd 1 ' "$S/runs.log")" = 1 ] || fail "repeat: the count started twice"
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" "$S/node"
wait_for "repeat: a passing run resumes the node" 'State=IDLE '
grep -q 'Reason=' "$S/node.txt" && fail "repeat: the resumed node still has a reason"
for _ in $(seq 50); do tail -n 1 "$S/runs.log" | grep -q '^perm\.kfd 0 ' && break; sleep 0.2; done
tail -n 1 "$S/runs.log" | grep -Eq '^perm\.kfd 0 exit 0 State=IDLE' ||
	fail "repeat: the run that resumed the node was not a pass: $(tail -n 1 "$S/runs.log")"
[ "$failures" = "$before" ] || cat "$S/runs.log" >&2
: >"$S/hc.env"

# The prolog on a GPU node (Gres=gpu:1; rocmcheck sees a failing GPU): a job
# that asks for no GPU runs, without a probe. (The probe of a job's GPUs is
# tested above without Slurm: slurmd gives a job of this made-up GRES no
# SLURM_JOB_GPUS.)
printf 'export ROCMCHECK_ARGS=%s\n' "'--sysroot $TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender'" >"$S/prolog.env"
ntests=$((ntests + 1))
timeout 30 srun -N1 -w "$node" true >"$S/srun.out" 2>&1 || fail "a job without a GPU did not run: $(cat "$S/srun.out")"
grep -Eq "^job [0-9]+ gpus '' exit 0" "$S/prolog.log" || fail "prolog for a job without a GPU: $(cat "$S/prolog.log" 2>&1)"
grep -q '^rocmcheck ' "$S/prolog.log" && fail "prolog probed a job without a GPU: $(cat "$S/prolog.log")"
wait_for "node up after the job" 'State=IDLE '

# An admin's drain is left alone, whatever the check says.
scontrol update nodename="$node" state=drain reason="admin maintenance"
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender" "$S/node"
after_runs amd-rx7900xtx-ubuntu2204-norender 2 # the second began after the link changed
wait_for "admin drain kept (failing)" 'Reason=admin maintenance'
ln -sfn "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" "$S/node"
after_runs amd-rx7900xtx-ubuntu2204-healthy 2
wait_for "admin drain kept (healthy)" 'Reason=admin maintenance'
grep -q 'already drained by someone else (admin maintenance)' "$S/hc.log" || fail "the wrapper did not name the admin's drain"
finish

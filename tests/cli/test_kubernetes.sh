#!/bin/bash
# contrib/kubernetes: every manifest parses as YAML and is valid against the
# Kubernetes object schemas (kubernetes-validate --strict, from ci/test-deps;
# ROCMCHECK_TEST_KV_SITE names its folder); the DaemonSet's loop is valid
# sh and, run against a fixture with a stand-in `rocmcheck`, replaces the
# feature file (with the health label of a node whose GPU fell off the bus)
# and keeps the old one when rocmcheck cannot do its job; its --repeat state
# is on a writable volume of the pod's own (the pod runs as nobody with a
# read-only root), and with ROCMCHECK_REPEAT=3 the labels stay healthy for
# two failing runs and turn on the third. The DaemonSet runs on GPU nodes
# only, through their taints; every container is least-privileged
# (k8s_sched.py). tests/cli/test_k8s_pod.sh runs the containers themselves.
. "$(dirname "$0")/lib.sh"

kv=${ROCMCHECK_TEST_KV_SITE:-}
if [ -z "$kv" ] || [ ! -d "$kv/kubernetes_validate" ]; then
	echo "SKIP: kubernetes-validate is not installed (ci/test-deps puts it in build/testsite; ROCMCHECK_TEST_KV_SITE)"
	exit 77
fi
K8S=$SOURCE_DIR/contrib/kubernetes

for m in "$K8S"/*.yaml; do
	ntests=$((ntests + 1))
	PYTHONPATH=$kv "$PYTHON" -m kubernetes_validate --strict --quiet "$m" >"$T/kv" 2>&1 ||
		{ fail "$(basename "$m") is not a valid Kubernetes object"; cat "$T/kv" >&2; }
done

# (kubectl is no offline validator: `kubectl apply --dry-run=client` and
# `kubectl create --dry-run=client -o yaml` fetch the OpenAPI schema and the
# API group list from a server first, and fail without one.)

# Where the pods land, and with what rights: k8s_sched.py decides
# scheduling as kube-scheduler's NodeAffinity, NodeSelector and
# TaintToleration filters do, for made-up nodes labelled as nfd-worker
# labels them, and checks every container for least privilege.
ntests=$((ntests + 1))
PYTHONPATH=$kv "$PYTHON" "$(dirname "$0")/k8s_sched.py" "$K8S"/*.yaml || fail "scheduling or privileges"

# The DaemonSet's script, taken from the manifest.
PYTHONPATH=$kv "$PYTHON" - "$K8S/rocmcheck-nfd-daemonset.yaml" >"$T/loop.sh" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
c = d["spec"]["template"]["spec"]["containers"][0]
assert c["command"] == ["/bin/sh", "-c"], c["command"]
print(c["args"][0])
PY
ntests=$((ntests + 1))
sh -n "$T/loop.sh" || fail "the DaemonSet's loop is not valid sh"
# once round the loop: /features.d -> a folder here, sleep ends it
mkdir -p "$T/bin" "$T/features.d"
cat >"$T/bin/rocmcheck" <<SH
#!/bin/sh
exec '$ROCMCHECK' --sysroot "\$FIXTURE" "\$@"
SH
printf '#!/bin/sh\nexit 7\n' >"$T/bin/sleep"
chmod +x "$T/bin/rocmcheck" "$T/bin/sleep"
sed "s|/features.d|$T/features.d|" "$T/loop.sh" >"$T/loop1.sh"
echo 'exit 0' >>"$T/loop1.sh"
sed -i 's/sleep 600/sleep 600 || break/' "$T/loop1.sh"
FIXTURE=$TESTS_DIR/fixtures/amd-rx7900xt-ubuntu2404-secureboot PATH="$T/bin:$PATH" sh "$T/loop1.sh"
ntests=$((ntests + 1))
grep -q '^rocmcheck.io/healthy=false$' "$T/features.d/rocmcheck" || fail "the loop did not write the labels"
[ "$(ls "$T/features.d")" = rocmcheck ] || fail "the loop left other files: $(ls "$T/features.d")"
# a GPU that fell off the bus: the node's health label, and the check's by GPU
FIXTURE=$TESTS_DIR/fixtures/nvidia-rtx4090-ubuntu2204-xid79 PATH="$T/bin:$PATH" sh "$T/loop1.sh"
ntests=$((ntests + 1))
grep -q '^rocmcheck.io/health=fail$' "$T/features.d/rocmcheck" || fail "the loop did not write the health label"
grep -q '^rocmcheck.io/check.health.kernel_log.gpu0=fail$' "$T/features.d/rocmcheck" ||
	fail "the loop did not write the health check's label"
FIXTURE=/nonexistent PATH="$T/bin:$PATH" sh "$T/loop1.sh" 2>"$T/err"
ntests=$((ntests + 1))
grep -q '^rocmcheck.io/healthy=false$' "$T/features.d/rocmcheck" || fail "a failed run replaced the labels"
grep -q 'labels left as they were' "$T/err" || fail "a failed run said nothing"

# The --repeat state: the folder of the loop's --state is a mount of its
# own, writable, from a volume nobody can write (an emptyDir: a hostPath
# folder is made root's), and the container says how many runs it takes.
ntests=$((ntests + 1))
PYTHONPATH=$kv "$PYTHON" - "$K8S/rocmcheck-nfd-daemonset.yaml" >"$T/state-dir" <<'PY' || fail "the DaemonSet's state volume"
import os, re, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
pod = d["spec"]["template"]["spec"]
c = pod["containers"][0]
m = re.search(r"--state (\S+)", c["args"][0])
assert m, "the loop gives no --state"
folder = os.path.dirname(m.group(1))
mounts = [v for v in c["volumeMounts"] if v["mountPath"] == folder]
assert mounts and not mounts[0].get("readOnly"), f"{folder} is not a writable mount"
vol = [v for v in pod["volumes"] if v["name"] == mounts[0]["name"]][0]
assert pod["securityContext"]["runAsUser"] != 0 and c["securityContext"]["readOnlyRootFilesystem"]
assert "emptyDir" in vol, f"{folder} is not on an emptyDir, which nobody can write"
env = {e["name"]: e["value"] for e in c.get("env", [])}
assert "ROCMCHECK_REPEAT" in env and 'ROCMCHECK_REPEAT' in c["args"][0], "no ROCMCHECK_REPEAT"
print(folder)
PY
# Repeat before failing: ROCMCHECK_REPEAT=3 and a GPU fallen off the bus;
# the node stays healthy (the check warns) for runs 1 and 2, turns on run 3,
# and a healthy node resets the count.
sed "s|$(cat "$T/state-dir")|$T/state|" "$T/loop1.sh" >"$T/loop-repeat.sh"
for n in 1 2 3; do
	FIXTURE=$TESTS_DIR/fixtures/nvidia-rtx4090-ubuntu2204-xid79 ROCMCHECK_REPEAT=3 PATH="$T/bin:$PATH" \
		sh "$T/loop-repeat.sh" 2>"$T/err"
	ntests=$((ntests + 1))
	want=true health=warn
	[ "$n" = 3 ] && want=false health=fail
	grep -q "^rocmcheck.io/healthy=$want$" "$T/features.d/rocmcheck" || fail "repeat run $n: not healthy=$want"
	grep -q "^rocmcheck.io/health=$health$" "$T/features.d/rocmcheck" || fail "repeat run $n: not health=$health"
	grep -q "^rocmcheck.io/check.health.kernel_log.gpu0=$health$" "$T/features.d/rocmcheck" ||
		fail "repeat run $n: the check's label is not $health"
	[ -s "$T/err" ] && { fail "repeat run $n said something"; cat "$T/err" >&2; }
done
grep -q '^fail health\.kernel_log 0000:01:00\.0 3 ' "$T/state/state" || fail "the state file: $(cat "$T/state/state")"
FIXTURE=$TESTS_DIR/fixtures/nvidia-rtx4090-ubuntu2204-healthy ROCMCHECK_REPEAT=3 PATH="$T/bin:$PATH" \
	sh "$T/loop-repeat.sh"
ntests=$((ntests + 1))
grep -q '^rocmcheck.io/healthy=true$' "$T/features.d/rocmcheck" || fail "repeat: a healthy run did not turn healthy"
grep -q '^end 0$' "$T/state/state" || fail "repeat: a healthy run kept the count: $(cat "$T/state/state")"
finish

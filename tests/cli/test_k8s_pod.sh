#!/bin/bash
# contrib/kubernetes, run as a kubelet would run them: every container of
# both manifests (the NFD DaemonSet with its init container, the standard
# Job) runs its own command, as its user and groups, with its capabilities,
# no_new_privs, read-only root and the volume mounts the manifest declares,
# on host folders made the way the kubelet makes them (a new hostPath
# DirectoryOrCreate folder is root:root 0755, an emptyDir 0777), in a mount
# namespace of its own (tests/cli/k8s_pod.py says how; a fixture sysroot
# stands in for the node, given to rocmcheck with --sysroot by the fake
# image's /usr/local/bin/rocmcheck). The DaemonSet's feature file must
# appear where nfd-worker reads it, replace an older root-owned one, parse
# as NFD's key=value format, and be readable by a non-root nfd-worker; the
# container must not be able to write what it mounts read-only, its root,
# or other hooks' files. Without the init container (the DaemonSet as it
# was), the file cannot be written: that failure must show. As root with
# unshare (CI runs as root); else skipped.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (mount namespaces, chroot and setpriv to run the pods' containers)"
	exit 77
fi
for t in unshare setpriv chroot mount; do
	command -v "$t" >/dev/null || { echo "SKIP: no $t (util-linux, coreutils)"; exit 77; }
done
if ! unshare --mount true 2>"$T/unshare"; then
	echo "SKIP: cannot make a mount namespace here: $(cat "$T/unshare")"
	exit 77
fi
export PYTHONPATH=${ROCMCHECK_TEST_KV_SITE:-}
"$PYTHON" -c 'import yaml' 2>/dev/null || { echo "SKIP: no PyYAML (python3-yaml)"; exit 77; }

K8S=$SOURCE_DIR/contrib/kubernetes
DS=$K8S/rocmcheck-nfd-daemonset.yaml
FEAT=etc/kubernetes/node-feature-discovery/features.d
FIX=$TESTS_DIR/fixtures

# pod NAME MANIFEST FIXTURE [k8s_pod.py options]: the pod's folders in
# $T/NAME (node/: what the kubelet and the pod wrote), its summary in $T/NAME.json
pod() {
	local name=$1 m=$2 fx=$3
	shift 3
	ntests=$((ntests + 1))
	mkdir -p "$T/$name"
	"$PYTHON" "$TESTS_DIR/cli/k8s_pod.py" "$m" --node "$fx" --work "$T/$name" --rocmcheck "$ROCMCHECK" "$@" \
		>"$T/$name.json" 2>"$T/$name.err" || { fail "$name: k8s_pod.py: $(cat "$T/$name.err")"; return 1; }
}
# get NAME EXPR: a Python expression over the pod's summary `d`
get() { json_get "$T/$1.json" "$2"; }
# log NAME N out|err: container N's log
log() { cat "$(get "$1" "d['containers'][$2]['std$3']")"; }

# nfd_file FILE: FILE is what nfd-worker's local source reads (NFD
# source/local/local.go): lines `key=value` (or `key`, meaning true), `#`
# comments, `# +expiry-time=RFC3339` (lines after it count only until then);
# at most 64 KiB. Every key must be a label name in rocmcheck.io/ and every
# value a label value (Kubernetes: 63 characters, alphanumerics and -_.
# inside), or nfd-master drops it. Prints the labels.
nfd_file() {
	"$PYTHON" - "$1" <<'PY'
import datetime, os, re, sys
path = sys.argv[1]
now = datetime.datetime.now(datetime.timezone.utc)
assert os.path.getsize(path) <= 65536, "over NFD's 64 KiB"
name = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
labels = {}
for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
    line = line.strip()
    if line.startswith("# +"):
        key, _, value = line[3:].partition("=")
        assert key == "expiry-time", f"line {n}: NFD knows no directive {key}"
        expiry = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        assert expiry > now, f"line {n}: the labels below expired at {value}"
    if not line or line.startswith("#"):
        continue
    key, _, value = line.partition("=")
    prefix, slash, short = key.rpartition("/")
    assert slash and prefix == "rocmcheck.io", f"line {n}: {key} is not in rocmcheck.io/"
    assert short and name.match(short), f"line {n}: {short!r} is not a label name"
    assert name.match(value), f"line {n}: {value!r} is not a label value"
    labels[key] = value
assert labels, "no labels"
for k, v in sorted(labels.items()):
    print(f"{k}={v}")
PY
}

# stat_is PATH "uid:gid mode": owner and octal mode
stat_is() {
	local got
	got=$(stat -c '%u:%g %a' "$1")
	[ "$got" = "$2" ] || fail "$1 is $got, expected $2"
}

# 1. The DaemonSet on a fresh node: the kubelet makes features.d root's
# 0755, the init container hands it over, one round of the loop labels.
pod ds "$DS" "$FIX/amd-rx7900xt-ubuntu2404-secureboot" && {
	ntests=$((ntests + 1))
	[ "$(get ds "d['pod']")" = ok ] || fail "ds: the pod did not start: $(cat "$T/ds.json")"
	[ "$(get ds "[(c['name'], c['init'], c['status'], c['uid'], c['caps']) for c in d['containers']]")" = \
		"[('features-dir', True, 0, 0, ['CHOWN']), ('rocmcheck', False, 'signal 15', 65534, [])]" ] ||
		fail "ds: the containers did not run as declared: $(cat "$T/ds.json")"
	[ "$(get ds "d['containers'][1]['round']")" = True ] || fail "ds: the loop did not reach its sleep"
	[ "$(log ds 1 err)" = "k8s_pod: sleep: one round done, the pod ends here" ] ||
		{ fail "ds: the container said something"; log ds 1 err >&2; }
	f=$T/ds/node/$FEAT/rocmcheck
	if [ -f "$f" ]; then
		nfd_file "$f" >"$T/labels" || fail "ds: the feature file does not parse as NFD's"
		grep -qx 'rocmcheck.io/healthy=false' "$T/labels" || fail "ds: no healthy=false: $(cat "$T/labels")"
		stat_is "$f" "65534:65534 644"
		stat_is "$T/ds/node/$FEAT" "0:65534 1775"
		[ "$(ls -A "$T/ds/node/$FEAT")" = rocmcheck ] || fail "ds: features.d holds $(ls -A "$T/ds/node/$FEAT")"
	else
		fail "ds: no feature file at /$FEAT/rocmcheck on the node"
		log ds 1 err >&2
	fi
}

# 2. The DaemonSet as it was, without its init container: nobody cannot
# write the kubelet's folder, and no node is ever labelled.
pod noinit "$DS" "$FIX/amd-rx7900xt-ubuntu2404-secureboot" --no-init && {
	ntests=$((ntests + 1))
	[ "$(get noinit "[c['name'] for c in d['containers']]")" = "['rocmcheck']" ] || fail "noinit: ran $(cat "$T/noinit.json")"
	[ -e "$T/noinit/node/$FEAT/rocmcheck" ] && fail "noinit: a feature file appeared without the init container"
	grep -qx 'rocmcheck: cannot create /features.d/rocmcheck: Permission denied' <(log noinit 0 err) ||
		{ fail "noinit: not the issue's 'Permission denied'"; log noinit 0 err >&2; }
	grep -qx 'rocmcheck exited 3; labels left as they were' <(log noinit 0 err) ||
		fail "noinit: the loop did not say rocmcheck exited 3"
	stat_is "$T/noinit/node/$FEAT" "0:0 755"
}

# 3. A node where an older version (as root) left its file, beside another
# hook's: the init container hands rocmcheck's over, the pod replaces it,
# the other stays root's and untouched.
mkdir -p "$T/old/node/$FEAT"
chmod 755 "$T/old/node/$FEAT" "$T/old/node/etc/kubernetes/node-feature-discovery"
echo 'rocmcheck.io/healthy=false' >"$T/old/node/$FEAT/rocmcheck"
echo 'example.com/other=true' >"$T/old/node/$FEAT/other"
chmod 644 "$T/old/node/$FEAT/rocmcheck" "$T/old/node/$FEAT/other"
pod old "$DS" "$FIX/amd-rx7900xtx-ubuntu2204-healthy" && {
	ntests=$((ntests + 1))
	nfd_file "$T/old/node/$FEAT/rocmcheck" >"$T/labels" || fail "old: the feature file does not parse"
	grep -qx 'rocmcheck.io/healthy=true' "$T/labels" || fail "old: the old file was not replaced: $(cat "$T/labels")"
	grep -qx 'rocmcheck.io/gpu.vendor=amd' "$T/labels" || fail "old: no gpu.vendor=amd: $(cat "$T/labels")"
	stat_is "$T/old/node/$FEAT/rocmcheck" "65534:65534 644"
	stat_is "$T/old/node/$FEAT/other" "0:0 644"
	[ "$(cat "$T/old/node/$FEAT/other")" = 'example.com/other=true' ] || fail "old: another hook's file changed"
}

# 4. What the DaemonSet's container may do, asked from inside it: write its
# state and feature folders; not its root, its read-only mounts, the node's
# device nodes, or another hook's file.
mkdir -p "$T/probe/node/$FEAT"
chmod 755 "$T/probe/node/$FEAT" "$T/probe/node/etc/kubernetes/node-feature-discovery"
echo 'example.com/other=true' >"$T/probe/node/$FEAT/other"
# shellcheck disable=SC2016
probe='echo "uid $(id -u) gid $(id -g) groups $(id -G)"
for p in /features.d/x /var/lib/rocmcheck/x /x /tmp/x /sys/x /opt/rocm/x /lib/modules/x /var/lib/dkms/x /dev/dri/x /etc/os-release; do
	if (: >>"$p") 2>/dev/null; then echo "write $p"; else echo "no-write $p"; fi
done
if rm -f /features.d/other 2>/dev/null; then echo "rm other"; else echo "no-rm other"; fi
grep ^CapEff /proc/self/status; grep ^NoNewPrivs /proc/self/status'
pod probe "$DS" "$FIX/amd-rx7900xt-ubuntu2404-secureboot" --exec "$probe" && {
	log probe 1 out >"$T/probe.out"
	cat >"$T/probe.want" <<'EOF'
uid 65534 gid 65534 groups 65534
write /features.d/x
write /var/lib/rocmcheck/x
no-write /x
no-write /tmp/x
no-write /sys/x
no-write /opt/rocm/x
no-write /lib/modules/x
no-write /var/lib/dkms/x
no-write /dev/dri/x
no-write /etc/os-release
no-rm other
CapEff:	0000000000000000
NoNewPrivs:	1
EOF
	ntests=$((ntests + 1))
	diff -u "$T/probe.want" "$T/probe.out" >&2 || fail "probe: the container may do more (or less) than declared"
	[ -e "$T/probe/node/$FEAT/other" ] || fail "probe: another hook's file went"
}

# 5. The standard Job on an AMD node: its container's JUnit report is the
# pod's log; exit 0 or 1 (checks failed), never a usage or I/O error.
pod job "$K8S/rocmcheck-standard-job.yaml" "$FIX/amd-rx7900xtx-ubuntu2204-healthy" && {
	ntests=$((ntests + 1))
	case $(get job "d['containers'][0]['status']") in
	0 | 1) ;;
	*) fail "job: exited $(get job "d['containers'][0]['status']")"; log job 0 err >&2 ;;
	esac
	log job 0 out >"$T/junit.xml"
	"$PYTHON" - "$T/junit.xml" <<'PY' || fail "job: the pod's log is not a JUnit report"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag in ("testsuites", "testsuite"), root.tag
assert len(root.findall(".//testcase")) > 0, "no test cases"
PY
}
# 6. What the Job's container may do: root without capabilities, a
# read-only root, /tmp its only writable folder (and its kernel cache).
# shellcheck disable=SC2016
probe='echo "uid $(id -u) cache $XDG_CACHE_HOME"
for p in /tmp/x /x /usr/x; do
	if (: >>"$p") 2>/dev/null; then echo "write $p"; else echo "no-write $p"; fi
done
grep ^CapEff /proc/self/status; grep ^NoNewPrivs /proc/self/status'
pod jobprobe "$K8S/rocmcheck-standard-job.yaml" "$FIX/amd-rx7900xtx-ubuntu2204-healthy" --exec "$probe" && {
	log jobprobe 0 out >"$T/probe.out"
	cat >"$T/probe.want" <<'EOF'
uid 0 cache /tmp/cache
write /tmp/x
no-write /x
no-write /usr/x
CapEff:	0000000000000000
NoNewPrivs:	1
EOF
	ntests=$((ntests + 1))
	diff -u "$T/probe.want" "$T/probe.out" >&2 || fail "jobprobe: the container may do more (or less) than declared"
}
finish

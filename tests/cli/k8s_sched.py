#!/usr/bin/python3
"""Where contrib/kubernetes's pods can land, and what they may do: for
tests/cli/test_kubernetes.sh.

    k8s_sched.py MANIFEST...

Scheduling follows kube-scheduler's filters for a pod's nodeSelector,
required node affinity (terms OR'ed, expressions in a term AND'ed) and
taints (every NoSchedule or NoExecute taint needs a toleration), applied to
made-up nodes labelled the way nfd-worker's pci source labels them
(feature.node.kubernetes.io/pci-<class>_<vendor>.present=true for device
classes 03 and 12, its default) and tainted the way GPU clusters taint them.
Privilege: every container drops ALL capabilities, adds none (but CHOWN in
the DaemonSet's init container), cannot escalate, is not privileged, has a
read-only root; the pods take no host namespaces, no service-account token,
seccomp RuntimeDefault; every hostPath is mounted read-only but the feature
folder. Prints each failure; exits 1 on any.
"""
import re
import sys

import yaml


def pci(cls, vendor):
    return {f"feature.node.kubernetes.io/pci-{cls}_{vendor}.present": "true"}


ASPEED = pci("0300", "1a03")  # the BMC's VGA of most servers: no GPU
NODES = {
    "mi300x": ({**pci("1200", "1002"), **ASPEED, "rocmcheck.io/gpu.vendor": "amd"},
               [{"key": "amd.com/gpu", "value": "present", "effect": "NoSchedule"}]),
    "mi210": ({**pci("0380", "1002"), **ASPEED, "rocmcheck.io/gpu.vendor": "amd"},
              [{"key": "amd.com/gpu", "effect": "NoSchedule"}]),
    "radeon-workstation": ({**pci("0300", "1002"), "rocmcheck.io/gpu.vendor": "amd"}, []),
    "h100": ({**pci("0302", "10de"), **ASPEED, "rocmcheck.io/gpu.vendor": "nvidia"},
             [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
    "rtx4090": ({**pci("0300", "10de"), "rocmcheck.io/gpu.vendor": "nvidia"}, []),
    "cpu": (dict(ASPEED), []),
    "cpu-no-nfd": ({}, []),
    "gpu-reserved": ({**pci("1200", "1002"), "rocmcheck.io/gpu.vendor": "amd"},
                     [{"key": "dedicated", "value": "training", "effect": "NoSchedule"}]),
}
LANDS = {
    "rocmcheck-nfd": {"mi300x", "mi210", "radeon-workstation", "h100", "rtx4090"},
    "rocmcheck-standard": {"mi300x", "mi210", "radeon-workstation"},
}
ADDED_CAPS = {"rocmcheck-nfd/features-dir": ["CHOWN"]}
WRITABLE_HOSTPATHS = {"rocmcheck-nfd": {"/etc/kubernetes/node-feature-discovery/features.d"}}

failures = []


def expression_matches(e, labels):
    op, key = e["operator"], e["key"]
    if op == "In":
        return labels.get(key) in e["values"]
    if op == "NotIn":
        return labels.get(key) not in e["values"]
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    raise ValueError(f"operator {op} is not simulated")


def tolerated(taint, tolerations):
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("operator", "Equal") == "Exists":
            if not t.get("key") or t["key"] == taint["key"]:
                return True
        elif t.get("key") == taint["key"] and t.get("value", "") == taint.get("value", ""):
            return True
    return False


def schedulable(pod, labels, taints):
    if any(labels.get(k) != v for k, v in pod.get("nodeSelector", {}).items()):
        return False
    req = pod.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if req and not any(all(expression_matches(e, labels) for e in term.get("matchExpressions", []))
                       for term in req["nodeSelectorTerms"]):
        return False
    return all(tolerated(t, pod.get("tolerations", [])) for t in taints
               if t["effect"] in ("NoSchedule", "NoExecute"))


def check_scheduling(name, pod):
    got = {n for n, (labels, taints) in NODES.items() if schedulable(pod, labels, taints)}
    if got != LANDS[name]:
        failures.append(f"{name}: lands on {sorted(got)}, expected {sorted(LANDS[name])}")


def check_container(name, pod, c, init):
    who = f"{name}/{c['name']}"
    sc = c.get("securityContext", {})
    caps = sc.get("capabilities", {})
    if caps.get("drop") != ["ALL"]:
        failures.append(f"{who}: does not drop ALL capabilities")
    if caps.get("add", []) != ADDED_CAPS.get(who, []):
        failures.append(f"{who}: adds capabilities {caps.get('add')}")
    if sc.get("allowPrivilegeEscalation") is not False:
        failures.append(f"{who}: may escalate privileges")
    if sc.get("privileged"):
        failures.append(f"{who}: privileged")
    if not sc.get("readOnlyRootFilesystem"):
        failures.append(f"{who}: writable root")
    host = {v["name"]: v["hostPath"]["path"] for v in pod.get("volumes", []) if "hostPath" in v}
    for m in c.get("volumeMounts", []):
        path = host.get(m["name"])
        if path and not m.get("readOnly") and path not in WRITABLE_HOSTPATHS.get(name, set()):
            failures.append(f"{who}: writes the node's {path}")
    uid = sc.get("runAsUser", pod.get("securityContext", {}).get("runAsUser"))
    if init and uid == 0:
        # what the init container gives away must be the pod's user and group
        psc = pod["securityContext"]
        script = " ".join(c.get("command", []) + c.get("args", []))
        for m in re.finditer(r"\bch(grp|own)(?: -h)? (\d+)(?::(\d+))?", script):
            want = [psc["runAsGroup"]] if m[1] == "grp" else [psc["runAsUser"], psc["runAsGroup"]]
            got = [int(x) for x in m.groups()[1:] if x is not None]
            if got != want:
                failures.append(f"{who}: ch{m[1]} {got}, but the pod runs as {want}")


def check(doc):
    name = doc["metadata"]["name"]
    pod = doc["spec"]["template"]["spec"]
    check_scheduling(name, pod)
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            failures.append(f"{name}: {key}")
    if pod.get("automountServiceAccountToken") is not False:
        failures.append(f"{name}: mounts a service-account token")
    if pod.get("securityContext", {}).get("seccompProfile", {}).get("type") != "RuntimeDefault":
        failures.append(f"{name}: no seccomp RuntimeDefault")
    for c in pod.get("initContainers", []):
        check_container(name, pod, c, True)
    for c in pod["containers"]:
        check_container(name, pod, c, False)


def main():
    seen = set()
    for path in sys.argv[1:]:
        for doc in yaml.safe_load_all(open(path)):
            check(doc)
            seen.add(doc["metadata"]["name"])
    if seen != set(LANDS):
        failures.append(f"manifests {sorted(seen)}, expected {sorted(LANDS)}")
    for f in failures:
        print(f"k8s_sched.py: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Run the pod of a Kubernetes manifest on this machine, the way a kubelet and
a container runtime would, without either: for tests/cli/test_k8s_pod.sh.

    k8s_pod.py MANIFEST --node FIXTURE --work DIR --rocmcheck BIN [--no-init]
               [--exec CMD] [--timeout S]

Each init container, then each container, runs in a mount namespace of its own
(unshare -m) on a root built in a tmpfs: the machine's /usr read-only (the
image's system), an "image" /usr/local/bin holding `rocmcheck` and a `sleep`
(below), the runtime's /proc, /dev and /dev/shm, and the manifest's
volumeMounts, read-only where it says readOnly; the root is remounted
read-only for readOnlyRootFilesystem. Then chroot and setpriv give the process
the container's user, group, supplementary groups (fsGroup,
supplementalGroups), capabilities (the runtime's default set less `drop` plus
`add`: the bounding set; none inheritable) and no_new_privs
(allowPrivilegeEscalation: false), and `env -i` its environment.

Volumes are made as the kubelet makes them. The node is two folders:
FIXTURE (a rocmcheck sysroot, tests/fixtures/...) holds what the node has,
and DIR/node what the kubelet and the pods write. A hostPath that some
mount writes is DIR/node/PATH: DirectoryOrCreate makes a missing folder
root:root 0755 (parents too), Directory and File require it. A hostPath only
read is FIXTURE/PATH when the fixture has it, else an empty folder (or file)
in DIR/node. An emptyDir is a new folder, root:root 0777 (with fsGroup:
that group, 2777).

The image: `rocmcheck` is /usr/local/bin/rocmcheck, a two-line sh wrapper
that runs BIN (bind-mounted read-only at /.rocmcheck-test/rocmcheck) with
`--sysroot /.rocmcheck-test/node` (FIXTURE, read-only): the fixture stands
in for the node for rocmcheck itself as well as for the hostPath volumes,
and the manifest's own command runs unchanged. The image's entrypoint (a
container without `command`) is that rocmcheck. `sleep` ends a long-running
container after one round: it says so on stderr and sends SIGTERM to its
parent, the container's shell. --exec CMD runs `/bin/sh -c CMD` in place of
the command of every container but the init containers (to probe what a
container may do).

Prints one JSON object: {"pod": "ok"|"init failed"|..., "containers":
[{"name", "init", "uid", "gid", "groups", "caps", "status", "round",
"stdout", "stderr"}]} with the logs' file names; exits 0 when it ran (a
container's failure is data), 2 when it cannot (not root, unsupported
manifest).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

import yaml

# containerd's and CRI-O's default capabilities for a container
DEFAULT_CAPS = ["CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
                "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"]
ROUND_END = "k8s_pod: sleep: one round done, the pod ends here"
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Unsupported(Exception):
    pass


def pod_spec(doc):
    if doc["kind"] == "Pod":
        return doc["spec"]
    if doc["kind"] in ("DaemonSet", "Deployment", "StatefulSet", "ReplicaSet", "Job"):
        return doc["spec"]["template"]["spec"]
    if doc["kind"] == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    raise Unsupported(f"kind {doc['kind']} has no pod")


def all_containers(spec):
    return [(c, True) for c in spec.get("initContainers", [])] + [(c, False) for c in spec["containers"]]


def writable_volumes(spec):
    return {m["name"] for c, _ in all_containers(spec) for m in c.get("volumeMounts", []) if not m.get("readOnly")}


def make_host_path(path, kind, is_dir):
    """Create a missing hostPath as the kubelet does: root:root, 0755 folders."""
    if os.path.lexists(path):
        if kind == "Directory" and not os.path.isdir(path):
            raise Unsupported(f"hostPath {path}: not a directory")
        return
    if kind in ("Directory", "File"):
        raise Unsupported(f"hostPath {path} ({kind}) does not exist on the node")
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    if is_dir:
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)  # the umask would not apply to the kubelet's
    else:
        open(path, "w").close()
        os.chmod(path, 0o644)


def volume_sources(spec, args):
    """name -> the node's folder or file behind each volume."""
    rw = writable_volumes(spec)
    fs_group = spec.get("securityContext", {}).get("fsGroup")
    out = {}
    for v in spec.get("volumes", []):
        name = v["name"]
        if "hostPath" in v:
            hp = v["hostPath"]
            kind = hp.get("type", "") or ""
            rel = hp["path"].lstrip("/")
            fixture = os.path.join(args.node, rel)
            if name not in rw and os.path.lexists(fixture):
                out[name] = os.path.realpath(fixture)
                if os.path.commonpath([out[name], args.node]) != args.node:
                    raise Unsupported(f"{fixture} leads out of the fixture")
                continue
            src = os.path.join(args.work, "node", rel)
            make_host_path(src, kind, kind not in ("File", "FileOrCreate"))
            out[name] = src
        elif "emptyDir" in v:
            src = os.path.join(args.work, "emptydir", name)
            os.makedirs(src)
            os.chmod(src, 0o777)
            if fs_group is not None:
                os.chown(src, 0, fs_group)
                os.chmod(src, 0o2777)
            out[name] = src
        else:
            raise Unsupported(f"volume {name}: only hostPath and emptyDir are simulated")
    return out


def identity(spec, c):
    """uid, gid, supplementary groups, capabilities, no_new_privs of a container."""
    psc, csc = spec.get("securityContext", {}), c.get("securityContext", {})
    uid = csc.get("runAsUser", psc.get("runAsUser", 0))  # the fake image's USER is root
    gid = csc.get("runAsGroup", psc.get("runAsGroup", 0))
    if csc.get("runAsNonRoot", psc.get("runAsNonRoot")) and uid == 0:
        raise Unsupported(f"{c['name']}: runAsNonRoot, but it would run as root (the kubelet refuses it)")
    if csc.get("privileged"):
        raise Unsupported(f"{c['name']}: privileged containers are not simulated")
    groups = list(psc.get("supplementalGroups", []))
    if psc.get("fsGroup") is not None:
        groups.append(psc["fsGroup"])
    caps = csc.get("capabilities", {})
    drop = {x.upper() for x in caps.get("drop", [])}
    have = [] if "ALL" in drop else [x for x in DEFAULT_CAPS if x not in drop]
    have += [x.upper() for x in caps.get("add", []) if x.upper() not in have]
    nnp = csc.get("allowPrivilegeEscalation") is False
    return uid, gid, groups, have, nnp


def make_image(work, binary):
    """The fake image's /usr/local: rocmcheck (a wrapper) and sleep."""
    img = os.path.join(work, "image")
    os.makedirs(os.path.join(img, "bin"))
    wrapper = "#!/bin/sh\nexec /.rocmcheck-test/rocmcheck --sysroot /.rocmcheck-test/node \"$@\"\n"
    sleeper = f"#!/bin/sh\necho '{ROUND_END}' >&2\nexec kill -TERM $PPID\n"
    for name, text in (("rocmcheck", wrapper), ("sleep", sleeper)):
        p = os.path.join(img, "bin", name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o755)
    return img


def mount_script(root, spec, c, sources, args, img):
    """The shell lines that build the container's root at `root`."""
    q = shlex.quote
    r = q(root)
    lines = ["set -eu", f"mount -t tmpfs -o mode=0755 tmpfs {r}", f"cd {r}",
             "mkdir etc proc dev sys tmp .overlay .rocmcheck-test .rocmcheck-test/node",
             "chmod 1777 tmp", "touch .rocmcheck-test/rocmcheck"]
    # the machine's system folders are the image's, read-only; an overlay,
    # so that mount points (/lib/modules) can be made in them as a runtime
    # makes them in an image's layers, without touching the machine's
    system = ["usr"]
    for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        if os.path.islink("/" + d):
            lines.append(f"ln -s {q(os.readlink('/' + d).lstrip('/'))} {d}")
        elif os.path.isdir("/" + d):
            system.append(d)
    for d in system:
        lines += [f"mkdir {d} .overlay/{d} .overlay/{d}.work",
                  f"mount -t overlay overlay -o lowerdir=/{d},upperdir=.overlay/{d},workdir=.overlay/{d}.work {d}"]
    lines += [f"mount --bind {q(img)} usr/local", "mount -o remount,bind,ro usr/local",
              "cp /etc/ld.so.cache etc/ 2>/dev/null || :",
              "printf 'root:x:0:0:root:/root:/bin/sh\\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\\n' >etc/passwd",
              "printf 'root:x:0:\\nnogroup:x:65534:\\n' >etc/group",
              "mount -t proc proc proc",
              "mount --bind /sys sys", "mount -o remount,bind,ro sys",
              "mount -t tmpfs -o mode=0755,nosuid tmpfs dev", "mkdir dev/shm", "mount -t tmpfs -o mode=1777 tmpfs dev/shm",
              "ln -s /proc/self/fd dev/fd", "ln -s /proc/self/fd/0 dev/stdin",
              "ln -s /proc/self/fd/1 dev/stdout", "ln -s /proc/self/fd/2 dev/stderr"]
    for n in ("null", "zero", "full", "random", "urandom", "tty"):
        lines += [f"touch dev/{n}", f"mount --bind /dev/{n} dev/{n}"]
    lines += [f"mount --bind {q(os.path.realpath(args.rocmcheck))} .rocmcheck-test/rocmcheck",
              "mount -o remount,bind,ro .rocmcheck-test/rocmcheck",
              f"mount --bind {q(args.node)} .rocmcheck-test/node", "mount -o remount,bind,ro .rocmcheck-test/node"]
    for m in sorted(c.get("volumeMounts", []), key=lambda m: m["mountPath"].count("/")):
        if m.get("subPath") or m.get("subPathExpr"):
            raise Unsupported(f"{c['name']}: subPath mounts are not simulated")
        src, tgt = sources[m["name"]], q(m["mountPath"].lstrip("/"))
        make = f"mkdir -p {tgt}" if os.path.isdir(src) else f"mkdir -p $(dirname {tgt}) && touch {tgt}"
        lines += [make, f"mount --bind {q(src)} {tgt}"]
        if m.get("readOnly"):
            lines.append(f"mount -o remount,bind,ro {tgt}")
    lines += [f"mount -o remount,ro {d}" for d in system]
    if c.get("securityContext", {}).get("readOnlyRootFilesystem"):
        lines.append(f"mount -o remount,ro {r}")
    return lines


def exec_line(root, spec, c, init, args):
    uid, gid, groups, caps, nnp = identity(spec, c)
    q = shlex.quote
    priv = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}",
            f"--groups={','.join(map(str, groups))}" if groups else "--clear-groups",
            "--inh-caps=-all", "--bounding-set=" + ",".join(["-all"] + ["+" + x.lower() for x in caps])]
    if nnp:
        priv.append("--no-new-privs")
    env = ["/usr/bin/env", "-i", f"PATH={IMAGE_PATH}", "HOME=/", f"HOSTNAME={c['name']}"]
    for e in c.get("env", []):
        if "value" not in e:
            raise Unsupported(f"{c['name']}: env {e['name']} is not a plain value")
        env.append(f"{e['name']}={e['value']}")
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):  # the sanitizer build's
        if k in os.environ:
            env.append(f"{k}={os.environ[k]}")
    if args.exec and not init:
        cmd = ["/bin/sh", "-c", args.exec]
    else:
        cmd = (c.get("command") or ["/usr/local/bin/rocmcheck"]) + c.get("args", [])
    return "exec chroot " + q(root) + " " + " ".join(q(x) for x in priv + ["--"] + env + cmd), \
        dict(uid=uid, gid=gid, groups=groups, caps=caps, no_new_privs=nnp)


def run_container(n, spec, c, init, sources, args, img):
    root = os.path.join(args.work, f"root{n}")
    os.mkdir(root)
    script = mount_script(root, spec, c, sources, args, img)
    line, ident = exec_line(root, spec, c, init, args)
    logs = os.path.join(args.work, "logs")
    os.makedirs(logs, exist_ok=True)
    out, err = (os.path.join(logs, f"{n}-{c['name']}.{x}") for x in ("out", "err"))
    with open(out, "w") as fo, open(err, "w") as fe:
        try:
            p = subprocess.run(["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                                "\n".join(script + [line])], stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                               timeout=args.timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    os.rmdir(root)  # the namespace, and its mounts, went with the process
    with open(err) as f:
        round_done = ROUND_END in f.read()
    status = rc if isinstance(rc, str) else (f"signal {-rc}" if rc < 0 else rc)
    return dict(name=c["name"], init=init, status=status, round=round_done, stdout=out, stderr=err, **ident)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("--node", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rocmcheck", required=True)
    ap.add_argument("--no-init", action="store_true", help="leave the init containers out")
    ap.add_argument("--exec", help="run /bin/sh -c EXEC in place of each (non-init) container's command")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("k8s_pod.py: needs root (mount namespaces, chroot, setpriv)", file=sys.stderr)
        return 2
    args.node = os.path.realpath(args.node)
    try:
        spec = pod_spec(yaml.safe_load(open(args.manifest)))
        sources = volume_sources(spec, args)
        img = make_image(args.work, args.rocmcheck)
        result = dict(pod="ok", containers=[])
        for n, (c, init) in enumerate(all_containers(spec)):
            if init and args.no_init:
                continue
            r = run_container(n, spec, c, init, sources, args, img)
            result["containers"].append(r)
            if init and r["status"] != 0:  # the kubelet restarts it; the pod never starts
                result["pod"] = f"init container {c['name']} failed"
                break
    except Unsupported as e:
        print(f"k8s_pod.py: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Hostile inputs at their caps: how long rocmcheck takes on each parser's
file at its cap (the sysroot layer's 1 MiB per file, the profile loader's
1 MiB, the kernel log's 4 MiB),
and on one bundle that holds all of them. Targets: every file at its cap
under 0.2 s, the whole hostile bundle under 2 s. Figures, not a timed test
(shared machines are noisy): the median of 3 runs of the whole command
(the ~10 ms of an ordinary run included), wall time and CPU time; on a
busy machine the CPU time is the figure to hold against the target.
A bundle holding a DKMS build tree and kernel sources of 10 000
directories is replayed beside the healthy fixture's bundle, and so is
one holding 10 000 directories that no check reads: --replay reads a
bundle into memory in one pass (src/replay.h), so the entries cost their
decoding (~2 us each, some 20 ms in all; the ratios are printed), not a
directory made and removed each (issue 25).

usage: ci/bench --caps [BUILD_DIR]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(src, "build")
exe = os.path.join(build, "rocmcheck")
if not os.access(exe, os.X_OK):
    sys.exit(f"ci/bench --caps: {exe} not found: build first (ci/setup)")
base = os.path.join(src, "tests", "fixtures", "amd-rx7900xtx-ubuntu2204-healthy")
CAP = 1 << 20


def fill(line, cap=CAP, head=b""):
    """head, then line(i) for i = 0, 1, ... while the text stays within cap."""
    parts, n, i = [head], len(head), 0
    while True:
        ln = line(i)
        if n + len(ln) > cap:
            return b"".join(parts)
        parts.append(ln)
        n += len(ln)
        i += 1


def ipv4(i):
    return f"{10 + i // 65536 % 200}.{i // 256 % 256}.{i % 256}.{1 + i // 13107200}"


KFD = "sys/devices/virtual/kfd/kfd/topology/nodes/1"
PCI = "sys/bus/pci/devices/0000:03:00.0"
# (name, path in the sysroot, content)
FILES = [
    ("proc/modules, distinct names", "proc/modules",
     fill(lambda i: f"mod{i:07d} 16384 0 - Live 0x0000000000000000\n".encode())),
    ("host.ini [env], distinct names", ".rocmcheck/host.ini",
     fill(lambda i: f"V{i:07d} = x\n".encode(), head=b"[capture]\nformat = 1\n[env]\n")),
    ("host.ini [env], secret values (bundle)", ".rocmcheck/host.ini",
     fill(lambda i: f"V{i:07d}_TOKEN = s{i:07d}\n".encode(), head=b"[capture]\nformat = 1\n[env]\n")),
    ("proc/cpuinfo, distinct IPv4 (bundle --anonymize)", "proc/cpuinfo",
     fill(lambda i: f"flags : {ipv4(i)}\n".encode())),
    ("etc/os-release, distinct keys", "etc/os-release",
     fill(lambda i: f"K{i:07d}=\"v\"\n".encode(), head=b"ID=ubuntu\nVERSION_ID=\"22.04\"\n")),
    ("proc/cmdline, one long line", "proc/cmdline", fill(lambda i: f"opt{i}=1 ".encode())),
    ("kernel.log, 4 MiB of GPU error lines", ".rocmcheck/kernel.log",
     fill(lambda i: (f"[{i}.000000] NVRM: Xid (PCI:0000:{i % 256:02x}:{i // 256 % 32:02x}): {i % 160}, pid={i}, x\n"
                     if i % 3 == 0 else
                     f"[{i}.000000] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq={i}\n"
                     if i % 3 == 1 else
                     f"[{i}.000000] pcieport 0000:00:01.1: AER: Corrected error received: 0000:03:00.0\n").encode(),
          cap=4 << 20)),
    ("kernel.log, 4 MiB in one line", ".rocmcheck/kernel.log", b"a" * (4 << 20)),
    ("kernel.log, 4 MiB of distinct IPv4 (bundle --anonymize)", ".rocmcheck/kernel.log",
     fill(lambda i: f"[{i}.0] r8169 eth0: link up, peer {ipv4(i)}\n".encode(), cap=4 << 20)),
    ("KFD node properties", KFD + "/properties",
     fill(lambda i: f"key{i:07d} {i}\n".encode(), head=b"gfx_target_version 110000\n")),
    ("PCI uevent", PCI + "/uevent", fill(lambda i: f"K{i:07d}=v\n".encode(), head=b"DRIVER=amdgpu\n")),
]


def run(argv):
    """Median wall and CPU (user + system) seconds of 3 runs."""
    wall, cpu = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        wall.append(time.perf_counter() - t0)
        cpu.append(ru.ru_utime + ru.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def tree(tmp, name, files):
    root = os.path.join(tmp, name)
    shutil.copytree(base, root, symlinks=True)
    for path, data in files:
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.islink(full):
            os.unlink(full)
        with open(full, "wb") as f:
            f.write(data)
    return root


def bundle_of(tmp, name, extra_dirs=()):
    """A bundle (tar.gz with sysroot/) of the healthy fixture plus empty
    directories `extra_dirs` (paths inside the sysroot)."""
    out = os.path.join(tmp, name + ".tar.gz")
    with tarfile.open(out, "w:gz") as tf:
        tf.add(base, arcname="sysroot")
        for d in extra_dirs:
            info = tarfile.TarInfo("sysroot/" + d)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            tf.addfile(info)
    return out


DKMS_VER = "6.10.5-2109964.22.04"
# 5 000 directories of a DKMS build tree and 5 000 of the sources in /usr/src
DKMS_DIRS = ([f"var/lib/dkms/amdgpu/{DKMS_VER}/build/amd/d{i:04d}" for i in range(5000)] +
             [f"usr/src/amdgpu-{DKMS_VER}/amd/amdgpu/d{i:04d}" for i in range(5000)])

rows = []
ratios = []
with tempfile.TemporaryDirectory() as tmp:
    rows.append(("healthy fixture (reference)", "doctor", run([exe, "--sysroot", base, "doctor", "--level", "quick"])))
    for i, (name, path, data) in enumerate(FILES):
        root = tree(tmp, f"t{i}", [(path, data)])
        if "bundle" in name:
            out = os.path.join(tmp, f"b{i}.tar.gz")
            extra = ["--anonymize"] if "anonymize" in name else []
            rows.append((name, " ".join(["bundle"] + extra),
                         run([exe, "--sysroot", root, "bundle", "--level", "quick", "-o", out] + extra)))
        else:
            rows.append((name, "doctor", run([exe, "--sysroot", root, "doctor", "--level", "quick"])))
    # a profile file at its cap of 1 MiB: distinct [fix] sections
    pdir = os.path.join(tmp, "profiles")
    shutil.copytree(os.path.join(src, "profiles"), pdir)
    with open(os.path.join(pdir, "zz-fixes.ini"), "wb") as f:
        f.write(fill(lambda i: f"[fix zz{i:07d}]\ntext = t\n".encode(), cap=1 << 20, head=b"source = bench\n"))
    rows.append(("profiles, [fix] sections (1 MiB file)", "profiles validate",
                 run([exe, "profiles", "validate", pdir])))
    # every hostile file in one sysroot, bundled, then replayed
    root = tree(tmp, "all", [(p, d) for _, p, d in FILES])
    bundle = os.path.join(tmp, "hostile.tar.gz")
    subprocess.run([exe, "--sysroot", root, "bundle", "--level", "quick", "-o", bundle],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    size = os.path.getsize(bundle) if os.path.exists(bundle) else 0
    rows.append((f"whole hostile bundle ({size >> 10} KiB)", "doctor --replay",
                 run([exe, "--replay", bundle, "doctor", "--level", "quick"])))
    # a DKMS tree of 10 000 directories, against the same bundle without it
    plain = run([exe, "--replay", bundle_of(tmp, "plain"), "doctor", "--level", "quick"])
    dkms = run([exe, "--replay", bundle_of(tmp, "dkms", DKMS_DIRS), "doctor", "--level", "quick"])
    rows.append(("healthy fixture's bundle (reference)", "doctor --replay", plain))
    rows.append(("DKMS tree of 10 000 directories (bundle)", "doctor --replay", dkms))
    ratios.append(("DKMS tree of 10 000 directories / healthy bundle", dkms[1] / max(plain[1], 1e-3)))
    # 10 000 directories no check reads, kept: a replay reads the bundle
    # into memory (issue 25), so they cost their decoding, not a file each
    doc = run([exe, "--replay", bundle_of(tmp, "doc", [f"usr/share/doc/d{i:05d}" for i in range(10000)]),
               "doctor", "--level", "quick"])
    rows.append(("10 000 directories no check reads (bundle)", "doctor --replay", doc))
    ratios.append(("10 000 directories no check reads / healthy bundle", doc[1] / max(plain[1], 1e-3)))

print(f"{'input at its cap':52} {'command':20} {'wall s':>7} {'cpu s':>7}  target (cpu)")
for name, cmd, (wall, cpu) in rows:
    target = 2.0 if "whole" in name else 0.2
    flag = "ok" if cpu < target else f"OVER {target} s"
    print(f"{name:52} {cmd:20} {wall:7.3f} {cpu:7.3f}  {flag}")
for name, ratio in ratios:
    print(f"{name:52} {'cpu ratio':20} {ratio:15.2f}  (10 000 entries cost their decoding only, ~2 us each)")

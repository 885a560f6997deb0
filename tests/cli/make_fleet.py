#!/usr/bin/env python3
"""Write N synthetic rocmcheck.report/1 reports into DIR for the fleet tests
and benchmark: nodes of 8 GPUs in groups (MI300X on one driver and ROCm, a
few on another driver, RTX 4090s), each with probe.gemm.fp16 and
probe.bandwidth figures around their group's value (seeded noise of 0.4 %),
a node with a failing check every 25 nodes, and the planted slow GPUs:
    node-0017 gpu 3 gemm at 50 %, node-0040 gpu 0 gemm at 90 %,
    node-0052 gpu 6 bandwidth at 60 %
(only among the first 64 nodes), plus a node-0058 gpu 1 at 97 % (noise, not
an outlier) and a 3-GPU group whose slow GPU is too few to judge.
usage: make_fleet.py DIR N
"""
import json
import os
import random
import sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = random.Random(1234)
planted = {("node-0017", 3, "probe.gemm.fp16"): 0.50, ("node-0040", 0, "probe.gemm.fp16"): 0.90,
           ("node-0052", 6, "probe.bandwidth"): 0.60, ("node-0058", 1, "probe.gemm.fp16"): 0.97}


def report(i):
    name = "node-%04d" % i
    if i % 10 == 9:       # NVIDIA nodes
        gpu = {"vendor": "nvidia", "name": "NVIDIA GeForce RTX 4090", "arch": "sm_89"}
        stack = {"kernel_driver": {"amdgpu": None, "nvidia": "550.54.14"}, "rocm": None,
                 "cuda": {"toolkit": "12.4", "driver_api": None}, "frameworks": []}
        base = {"probe.gemm.fp16": 160.0, "probe.bandwidth": 900.0}
        backend = "cuda"
    else:
        gpu = {"vendor": "amd", "name": "AMD Instinct MI300X", "arch": "gfx942"}
        drv = "6.8.5" if i not in (3, 4, 5) else "6.10.5"   # 3 nodes on another driver: a group of 24 GPUs
        stack = {"kernel_driver": {"amdgpu": drv, "nvidia": None}, "rocm": {"version": "6.2.0", "path": "/opt/rocm"},
                 "cuda": {"toolkit": None, "driver_api": None}, "frameworks": []}
        base = {"probe.gemm.fp16": 600.0, "probe.bandwidth": 4000.0}
        backend = "hip"
    ngpu = 8
    if i == 7:            # a node of 3 GPUs on its own driver: too few to judge
        ngpu = 3
        stack["kernel_driver"]["amdgpu"] = "6.7.0"
    gpus, probes = [], []
    for g in range(ngpu):
        gpus.append(dict(index=g, pci="0000:%02x:00.0" % (g + 1), pci_id=None, vram_bytes=None, integrated=False,
                         driver=None, kfd_node=None, render_node=None, family=None, visible=True, **gpu))
        for pid, v in base.items():
            f = planted.get((name, g, pid), 1.0)
            if i == 7 and g == 2 and pid == "probe.gemm.fp16":
                f = 0.5
            val = v * f * (1 + 0.004 * rng.gauss(0, 1))
            p = {"id": pid, "gpu": g, "backend": backend, "status": "pass", "summary": "correct"}
            p["tflops" if "gemm" in pid else "gbs"] = val
            probes.append(p)
    failing = i % 25 == 24
    checks = [{"id": "perm.kfd", "category": "permissions", "title": "Access to /dev/kfd",
               "status": "fail" if failing else "pass", "summary": "x", "evidence": [], "fix": None, "gpu": None},
              {"id": "system.kernel", "category": "system", "title": "Kernel", "status": "pass", "summary": "x",
               "evidence": [], "fix": None, "gpu": None}]
    status = "fail" if failing else "pass"
    return {"schema": "rocmcheck.report/1", "tool": {"name": "rocmcheck", "version": "0.1.0"},
            "source": {"kind": "live", "path": "/", "errors": []}, "level": "standard",
            "host": {"hostname": name, "kernel": "6.8.0", "arch": "x86_64", "os": {}, "container": None, "wsl": False},
            "gpus": gpus, "stack": stack, "checks": checks, "probes": probes,
            "summary": {"status": status, "pass": 1, "warn": 0, "fail": int(failing), "skip": 0, "error": 0,
                        "exit_status": int(failing)}}


for i in range(n):
    with open(os.path.join(out, "node-%04d.json" % i), "w") as fh:
        json.dump(report(i), fh)

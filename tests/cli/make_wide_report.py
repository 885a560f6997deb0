#!/usr/bin/env python3
"""Write one synthetic rocmcheck.report/1 report with N GPUs for the scaling
tests of `fleet` and `diff` (tests/cli/test_fleet_scale.sh): N GPUs, a
passing probe.gemm.fp16 per GPU, and N checks with IDs of their own, every
other one failing. VARIANT b changes every GPU's name and every check's
status, so that a diff of a and b differs in every fact and verdict.
usage: make_wide_report.py FILE N [a|b]
"""
import json
import sys

path, n = sys.argv[1], int(sys.argv[2])
variant = sys.argv[3] if len(sys.argv) > 3 else "a"
gpus, probes, checks = [], [], []
for g in range(n):
    gpus.append({"index": g, "vendor": "amd", "name": "AMD Instinct MI300X" + (" rev b" if variant == "b" else ""),
                 "arch": "gfx942", "pci": "%04x:%02x:00.0" % (g // 256, g % 256), "pci_id": None,
                 "vram_bytes": None, "integrated": False, "driver": "amdgpu", "kfd_node": None,
                 "render_node": None, "family": None, "visible": True})
    probes.append({"id": "probe.gemm.fp16", "gpu": g, "backend": "hip", "status": "pass", "summary": "correct",
                   "tflops": 600.0 + (g % 7)})
    failing = (g % 2 == 0) != (variant == "b")
    checks.append({"id": "device.wide%05d" % g, "category": "device", "title": "A check", "gpu": None,
                   "status": "fail" if failing else "pass", "summary": "x", "evidence": [], "fix": None})
doc = {"schema": "rocmcheck.report/1", "tool": {"name": "rocmcheck", "version": "0.1.0"},
       "source": {"kind": "live", "path": "/", "errors": []}, "level": "standard",
       "host": {"hostname": "wide-%d" % n, "kernel": "6.8.0", "arch": "x86_64", "os": {}, "container": None,
                "wsl": False},
       "gpus": gpus,
       "stack": {"kernel_driver": {"amdgpu": "6.8.5", "nvidia": None},
                 "rocm": {"version": "6.2.0", "path": "/opt/rocm"},
                 "cuda": {"toolkit": None, "driver_api": None}, "frameworks": []},
       "checks": checks, "probes": probes,
       "summary": {"status": "fail", "pass": n + n // 2, "warn": 0, "fail": n - n // 2, "skip": 0, "error": 0,
                   "exit_status": 1}}
with open(path, "w") as fh:
    json.dump(doc, fh)

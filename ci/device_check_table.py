#!/usr/bin/env python3
"""The table of ci/device-check, from the files it leaves in its work
directory: probe-small.json, probe-medium.json (rocmcheck probe --json),
cublas.txt (ci/cublas_bench), doctor.json, and the *.err files.

usage: device_check_table.py WORK GPU BUILD_START BUILD_END DOCTOR_START DOCTOR_END
Exit status 0 when every probe on the GPU passed (or warned), else 1."""
import json, os, sys
work, gpu, t0, t1, d0, d1 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:7])

def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": str(e)}

def first_line(name):
    try:
        with open(os.path.join(work, name)) as f:
            return f.read().strip().splitlines()[-1]
    except (OSError, IndexError):
        return ""

small, medium, doctor = load("probe-small.json"), load("probe-medium.json"), load("doctor.json")
cublas = {}
try:
    for line in open(os.path.join(work, "cublas.txt")):
        k, v = line.split()
        cublas[k] = float(v)
except (OSError, ValueError):
    pass

rows = []
ok = True
def row(item, value, target="", verdict=""):
    rows.append((item, value, target, verdict))

for p in small.get("probes", []):
    if p.get("gpu") not in (gpu, None):
        continue
    ok &= p["status"] in ("pass", "warn")
    val = p.get("summary", "")
    if p.get("tflops"):
        val = "%.1f TFLOP/s, %s, max rel err %.1e, %s" % (p["tflops"], p.get("variant"), p.get("max_rel_error") or 0, p.get("verification"))
    row(p["id"] + " (small)", val, "verified", p["status"])
if "error" in small:
    ok = False
    row("probe (small)", "no report: " + first_line("probe-small.err"), "verified", "fail")

own = {p["id"]: p for p in medium.get("probes", []) if p.get("gpu") in (gpu, None)}
for pid, key, label, target in (("probe.gemm.fp32", "sgemm_tflops", "SGEMM", 0.50),
                                ("probe.gemm.fp16", "hgemm_tflops", "fp16 GEMM (fp32 acc)", 0.30)):
    p = own.get(pid)
    ours = p.get("tflops") if p else None
    ref = cublas.get(key)
    if p:
        ok &= p["status"] in ("pass", "warn")
    if ours and ref:
        r = ours / ref
        row("%s 4096^3 vs cuBLAS %s" % (pid, label), "%.1f vs %.1f TFLOP/s = %.0f%%" % (ours, ref, 100 * r),
            ">= %.0f%%" % (100 * target), "met" if r >= target else "missed")
    else:
        why = first_line("cublas.err") if not ref else (p or {}).get("summary", "no result")
        row("%s 4096^3 vs cuBLAS %s" % (pid, label), "n/a: " + why, ">= %.0f%%" % (100 * target), "n/a")

ngpu = max(1, len([g for g in doctor.get("gpus", []) if g.get("vendor") == "nvidia"]))
dt = d1 - d0
dstat = doctor.get("summary", {}).get("status", "no report: " + first_line("doctor.err"))
row("doctor --level standard wall time", "%.2f s for %d GPU(s) (%.2f s/GPU), status %s" % (dt, ngpu, dt / ngpu, dstat),
    "< 5 s per GPU", "met" if dt / ngpu < 5 else "missed")
row("build from a clean tree", "%.0f s" % (t1 - t0))

w = [max(len(str(r[i])) for r in rows + [("item", "value", "target", "verdict")]) for i in range(4)]
fmt = "| %%-%ds | %%-%ds | %%-%ds | %%-%ds |" % tuple(w)
print(fmt % ("item", "value", "target", "verdict"))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows:
    print(fmt % r)
sys.exit(0 if ok else 1)

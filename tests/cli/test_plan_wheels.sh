#!/bin/bash
# Driver and wheel chosen together (issue 24, class 8): for every OS the
# profiles describe and every NVIDIA GPU model they know, `plan --os OS --gpu
# GPU` installs a PyTorch wheel whose CUDA release runs on the driver that
# same plan installs (the OS route's series, profile nvidia_branch), and that
# builds for the GPU's compute capability. A machine with an installed
# driver gets a wheel that driver runs. The profile files are read here on
# their own, so a plan that drifts from them fails.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ROCMCHECK=$ROCMCHECK PROFILES=$SOURCE_DIR/profiles FIXTURES=$TESTS_DIR/fixtures python3 - <<'EOF' || fail "driver and wheel"
import configparser, json, os, re, subprocess, sys

prof = os.environ["PROFILES"]
exe = os.environ["ROCMCHECK"]

def sections(fname, kind):
    cp = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=(";", "#"))
    with open(os.path.join(prof, fname)) as f:
        cp.read_string("[_file]\n" + f.read())   # keys before the first section
    return {s.split(None, 1)[1]: cp[s] for s in cp.sections() if s.startswith(kind + " ")}

oses = sections("os.ini", "os")
gpus = sections("gpus-nvidia.ini", "gpu")
cuda = sections("cuda.ini", "cuda")
index_release = {c["torch_index"].rstrip("/"): (v, c) for v, c in cuda.items() if "torch_index" in c}

def major(v):
    return int(v.split(".")[0])

def cc(s):
    a, b = s.split(".")
    return (int(a), int(b))

def wheel_of(doc):
    text = json.dumps(doc)
    m = re.findall(r"https://download\.pytorch\.org/whl/cu[0-9]+", text)
    return sorted(set(m))

bad = []
checked = 0
capped = 0
for os_key, o in sorted(oses.items()):
    branch = int(o["nvidia_branch"]) if "nvidia_branch" in o else 0
    for slug, g in sorted(gpus.items()):
        p = subprocess.run([exe, "--json", "plan", "--os", os_key, "--gpu", slug],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            bad.append(f"{os_key} {slug}: exit {p.returncode}: {p.stderr.strip()}")
            continue
        if not p.stdout.strip():
            continue              # no plan can work: said on stderr
        wheels = wheel_of(json.loads(p.stdout))
        if len(wheels) > 1:
            bad.append(f"{os_key} {slug}: two wheel indexes {wheels}")
        for w in wheels:
            rel, c = index_release[w]
            need = c.get("min_driver")
            checked += 1
            if branch and need and major(need) > branch:
                bad.append(f"{os_key} {slug}: {w} (CUDA {rel}) needs driver {need}, "
                           f"the plan installs the {branch} series")
            if branch and need and major(need) <= branch:
                capped += 1
            gcc = g.get("compute_capability") or g.get("cc")
            if gcc and "min_cc" in c and cc(gcc) < cc(c["min_cc"]):
                bad.append(f"{os_key} {slug}: {w} builds for compute capability >= {c['min_cc']}, the GPU is {gcc}")

# The route capped somewhere: the test would pass vacuously otherwise.
if not any("nvidia_branch" in o for o in oses.values()) or capped == 0:
    bad.append("no OS route caps the driver series, or no capped plan was checked")

# A machine with a driver installed: the wheel runs on that driver.
fx = os.path.join(os.environ["FIXTURES"], "nvidia-rtx3090-ubuntu2204-olddriver")
p = subprocess.run([exe, "--json", "--sysroot", fx, "plan"], capture_output=True, text=True)
doc = json.loads(p.stdout) if p.stdout.strip() else {}
r = subprocess.run([exe, "--json", "--sysroot", fx, "doctor", "--level", "quick"], capture_output=True, text=True)
drv = json.loads(r.stdout)["stack"]["kernel_driver"]
installed = drv.get("nvidia_userspace") or drv.get("version")
for w in wheel_of(doc):
    rel, c = index_release[w]
    if installed and "min_driver" in c:
        iv = tuple(int(x) for x in re.findall(r"\d+", installed)[:3])
        nv = tuple(int(x) for x in re.findall(r"\d+", c["min_driver"])[:3])
        # the plan may upgrade the driver first; then the wheel fits the new one
        upgrades = "nvidia_driver" in json.dumps(doc) or "cuda_driver" in json.dumps(doc)
        if iv < nv and not upgrades:
            bad.append(f"olddriver fixture: {w} needs {c['min_driver']}, installed {installed}, no driver step")
    checked += 1

print(f"{checked} plans with a wheel checked, {capped} of them on a capped driver series")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
finish

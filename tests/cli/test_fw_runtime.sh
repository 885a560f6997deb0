#!/bin/bash
# framework.torch.runtime on this (GPU-less) machine, through a real Python
# interpreter: virtual environments made here hold the stand-in torch package
# of tests/fake/torch_standin, one behaviour each (its MODE file):
#   healthy, wrongmatmul, noskip, invalidfn -> the script runs every stage
#     (the stand-in "sees" a GPU the inventory does not show, as under WSL);
#   importerror, cpu, unavailable, crash, hang, silent -> each failure path;
#   a venv whose interpreter link is broken; PYTHONPATH and the current
#   directory never shadow the install; quick level, --skip and --sysroot;
#   as root, an environment another user may change is not run.
# A real TensorFlow (CPU build, from ci/frameworks) runs its own script; a
# real PyTorch is used too when this machine's python3 can import one.
. "$(dirname "$0")/lib.sh"

if machine_has_gpu; then
	echo "SKIP: this machine has a GPU; the expectations here are for a machine without one"
	exit 77
fi

STANDIN=$TESTS_DIR/fake/torch_standin/torch
real_python=$("$PYTHON" -c 'import os, sys; print(os.path.realpath(sys.executable))')
pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# venv NAME MODE BUILD: $T/NAME, a virtual environment with the stand-in torch
# in MODE; BUILD is rocm, cuda or cpu (torch/version.py, which the facts read).
venv() {
	local v=$T/$1 site
	site=$v/lib/python$pyver/site-packages
	mkdir -p "$v/bin" "$site"
	ln -sf "$real_python" "$v/bin/python"
	echo "home = $(dirname "$real_python")" >"$v/pyvenv.cfg"
	cp -r "$STANDIN" "$site/torch"
	echo "$2" >"$site/torch/MODE"
	case $3 in
	rocm) printf '__version__ = "2.4.0+rocm6.1"\nhip = "6.1.40091"\ncuda = None\n' ;;
	cuda) printf '__version__ = "2.4.0+cu121"\nhip = None\ncuda = "12.1"\n' ;;
	cpu) printf '__version__ = "2.4.0+cpu"\nhip = None\ncuda = None\n' ;;
	esac >"$site/torch/version.py"
	echo "$v"
}

# check VENV STATUS ARGS...: doctor --only framework.torch.runtime in VENV
check() {
	local v=$1 want=$2
	shift 2
	VIRTUAL_ENV=$v run "$want" doctor --only framework.torch.runtime -v "$@"
}

line() {
	grep 'framework.torch.runtime' "$OUT" | head -1
}

v=$(venv healthy healthy rocm)
check "$v" 0
assert_out_has "✓ PyTorch computes on the GPU: torch 2.4.0+rocm6.1 ($v/bin/python) sees 1 GPU (AMD Radeon RX 7900 XTX), which the report's inventory does not show; a matmul and an AMP step verify"
assert_out_has "torch.cuda.get_device_name: 0: AMD Radeon RX 7900 XTX (gfx1100)"
assert_out_has "matmul 1024^3: fp32 "
VIRTUAL_ENV=$v run 0 --json doctor --only framework.torch.runtime
validate_json "$OUT" || fail "the report with a runtime entry does not validate"
[ "$(json_get "$OUT" 'd["stack"]["frameworks"][0]["runtime"]["status"], d["stack"]["frameworks"][0]["runtime"]["matmul_ok"], d["stack"]["frameworks"][0]["runtime"]["amp_ok"], d["stack"]["frameworks"][0]["runtime"]["devices"]')" \
	= "pass True True ['AMD Radeon RX 7900 XTX (gfx1100)']" ] || { fail "runtime entry of the healthy venv"; last; }

# The same install reached with PYTHONPATH and the current directory holding a
# torch that would shadow it: neither reaches the script.
mkdir -p "$T/shadow/torch"
echo 'raise ImportError("the shadow torch was imported")' >"$T/shadow/torch/__init__.py"
(cd "$T/shadow" && PYTHONPATH=$T/shadow VIRTUAL_ENV=$v "$ROCMCHECK" doctor --only framework.torch.runtime -v) >"$OUT" 2>"$ERR"
ntests=$((ntests + 1))
assert_out_has "a matmul and an AMP step verify"
assert_out_lacks "shadow"

v=$(venv wrong wrongmatmul rocm)
check "$v" 1
assert_out_has "✗ PyTorch computes on the GPU: torch 2.4.0+rocm6.1 ($v/bin/python): a 256x256 fp32 matmul on cuda:0 is wrong"
assert_out_has "rocmcheck probe"

v=$(venv noskip noskip cuda)
check "$v" 1
assert_out_has "torch 2.4.0+cu121 ($v/bin/python): mixed precision is wrong: the GradScaler applied a step whose loss overflowed"

v=$(venv invalidfn invalidfn rocm)
check "$v" 1
assert_out_has "fails at matmul: RuntimeError: HIP error: invalid device function"
assert_out_has "$v/bin/python -m pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm"

v=$(venv importerror importerror rocm)
check "$v" 1
assert_out_has "\`import torch\` fails: ImportError: libamdhip64.so: cannot open shared object file: No such file or directory"
# the fix is about the import error, not the machine's GPUs (it has none): the
# library it names, and the same build again with the environment's interpreter;
# torch.version.hip, never read, is not evidence
assert_out_has "The library libamdhip64.so cannot be loaded"
assert_out_has "$v/bin/python -m pip install --force-reinstall --no-cache-dir torch==2.4.0+rocm6.1 --index-url https://download.pytorch.org/whl/rocm6.1"
assert_out_lacks "torch.version.hip"
assert_out_lacks "replace it with"

# plan runs the runtime checks at --level standard (its default, quick, runs
# no interpreter); here, without a GPU, no plan can work, but the check ran
# (unit.test_plan's test_runtime_fix puts its fix in a plan)
VIRTUAL_ENV=$v run 1 plan --level standard
assert_err_has "no plan can work: no AMD or NVIDIA GPU"
usage_error plan --level standard --os ubuntu-24.04 --gpu gfx1100

v=$(venv cpu cpu cpu)
check "$v" 0
assert_out_has "torch 2.4.0+cpu ($v/bin/python) is a CPU-only build; no usable GPU was found"

v=$(venv unavailable unavailable rocm)
check "$v" 0
assert_out_has "is_available() is False; the report found no usable AMD GPU"

v=$(venv crash crash rocm)
check "$v" 1
assert_out_has "E PyTorch computes on the GPU: torch 2.4.0+rocm6.1 ($v/bin/python) crashed with signal 6 (Aborted); it printed: Memory access fault by GPU node-1"

v=$(venv silent silent rocm)
check "$v" 1
assert_out_has "printed no answer"

# an import that hangs: doctor's --timeout is the framework run's watchdog
v=$(venv hang hang rocm)
start=$(date +%s)
check "$v" 1 --timeout 2
assert_out_has "($v/bin/python) did not finish: timed out after 2 s"
[ $(($(date +%s) - start)) -lt 60 ] || fail "--timeout 2 did not shorten the framework run's watchdog"
pgrep -f "$v/bin/python" >/dev/null && fail "the hung interpreter outlived the check"

# An environment whose interpreter link is broken (the system Python it
# pointed at was upgraded away).
v=$(venv broken healthy rocm)
ln -sf /nonexistent/python3.99 "$v/bin/python"
check "$v" 1
assert_out_has "the interpreter of $v/lib/python$pyver/site-packages/torch cannot run"
assert_out_has "recreate the environment"

# As root, an environment another user may change is not run: its code would
# run as root. The interpreter is a script that leaves a marker when it runs;
# root's own copy runs (and leaves it), the one owned by uid 65534 must not.
if [ "$(id -u)" = 0 ]; then
	marker=$T/ran-as-root
	script_python() {
		rm -f "$1/bin/python"   # a link to the real interpreter: never write through it
		# exec -a: the interpreter finds its environment from the name it was run by
		printf '#!/bin/bash\ntouch %s\nexec -a "$0" %s "$@"\n' "$marker" "$real_python" >"$1/bin/python"
		chmod 755 "$1/bin/python"
	}
	v=$(venv rootsown healthy rocm)
	script_python "$v"
	check "$v" 0
	assert_out_has "a matmul and an AMP step verify"
	[ -e "$marker" ] || fail "the marker script did not run for root's own environment"
	rm -f "$marker"

	v=$(venv othersown healthy rocm)
	script_python "$v"
	chown -R 65534:65534 "$v"
	owner=$(id -nu 65534 2>/dev/null || echo "'#65534'")
	check "$v" 0
	[ -e "$marker" ] && fail "the interpreter of an environment owned by uid 65534 ran as root"
	assert_out_has "PyTorch computes on the GPU: torch 2.4.0+rocm6.1 ($v/bin/python) was not run as root: $v is writable by uid 65534"
	assert_out_has "importing it as root would run that user's code; run the check as $owner: \`sudo -H -u $owner env VIRTUAL_ENV=$v rocmcheck doctor --only framework.torch.runtime\`"
	assert_out_has "evidence: $v: owner $owner (uid 65534)"
	VIRTUAL_ENV=$v run 0 --json doctor --only framework.torch.runtime
	validate_json "$OUT" || fail "the report with a refused runtime entry does not validate"
	[ "$(json_get "$OUT" '[c["status"] for c in d["checks"]], d["stack"]["frameworks"][0]["runtime"]["status"], d["checks"][0]["fix"]["commands"]')" \
		= "['skip'] skip ['sudo -H -u $owner env VIRTUAL_ENV=$v rocmcheck doctor --only framework.torch.runtime']" ] ||
		{ fail "JSON of the refused runtime entry"; last; }
	[ -e "$marker" ] && fail "the interpreter of an environment owned by uid 65534 ran as root (--json)"

	# root's environment, but its site-packages group-writable
	v=$(venv groupw healthy rocm)
	script_python "$v"
	chmod g+w "$v/lib/python$pyver/site-packages"
	check "$v" 0
	[ -e "$marker" ] && fail "the interpreter ran as root with a group-writable site-packages"
	assert_out_has "$v/lib/python$pyver/site-packages is writable by group 0"

	# a user site (~/.local, reached through HOME) owned by another user: the
	# PATH's python3.X would import it as root
	[ -x "/usr/bin/python$pyver" ] || fail "no /usr/bin/python$pyver for the user-site case"
	home=$T/home
	site=$home/.local/lib/python$pyver/site-packages
	mkdir -p "$site"
	cp -r "$STANDIN" "$site/torch"
	echo healthy >"$site/torch/MODE"
	printf '__version__ = "2.4.0+rocm6.1"\nhip = "6.1.40091"\ncuda = None\n' >"$site/torch/version.py"
	echo 'import os; open(os.environ["HOME"] + "/../ran-as-root", "w").close()' >"$site/marker.pth"
	chown -R 65534:65534 "$home"
	HOME=$home PATH=/usr/bin:/bin run 0 doctor --only framework.torch.runtime -v
	[ -e "$marker" ] && fail "a user site owned by uid 65534 was imported as root"
	assert_out_has "was not run as root: $home is writable by uid 65534"
	assert_out_has "sudo -H -u $owner rocmcheck doctor --only framework.torch.runtime"
	chown -R 0:0 "$home"
	HOME=$home PATH=/usr/bin:/bin run 0 doctor --only framework.torch.runtime -v
	assert_out_has "torch 2.4.0+rocm6.1 (/usr/bin/python$pyver) sees 1 GPU"
	[ -e "$marker" ] || fail "root's own user site was not read (the marker .pth did not run)"
	rm -f "$marker"
else
	echo "note: the refusal to run another user's environment as root needs root (chown to uid 65534)"
fi

# Not at quick level, not when skipped, not on a captured machine.
v=$T/healthy
check "$v" 0 --level quick
assert_out_has "needs the runtime"
VIRTUAL_ENV=$v run 0 doctor --skip framework.torch.runtime -v --only framework
assert_out_lacks "framework.torch.runtime"
run 0 --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" doctor --only framework.torch.runtime -v
assert_out_has "needs the live machine"

# A real TensorFlow (the CPU build ci/frameworks installs; ci/test passes its
# folder): the script runs against the real API and, without a GPU, must say
# the build is CPU-only, never pass.
tf_site=${ROCMCHECK_TEST_TF_SITE:-}
if [ -n "$tf_site" ] && [ -d "$tf_site/tensorflow" ]; then
	v=$T/realtf
	mkdir -p "$v/bin" "$v/lib/python$pyver"
	ln -sf "$real_python" "$v/bin/python"
	echo "home = $(dirname "$real_python")" >"$v/pyvenv.cfg"
	ln -s "$tf_site" "$v/lib/python$pyver/site-packages"
	VIRTUAL_ENV=$v run 0 doctor --only framework.tensorflow.runtime -v
	assert_out_has "tensorflow 2.16.2 ($v/bin/python) is a CPU-only build; no usable GPU was found"
	assert_out_has "tensorflow.__version__: 2.16.2"
	VIRTUAL_ENV=$v run 0 --json doctor --only framework.tensorflow.runtime
	validate_json "$OUT" || fail "the report with TensorFlow's runtime entry does not validate"
	[ "$(json_get "$OUT" '[f["runtime"]["stage"] for f in d["stack"]["frameworks"] if "runtime" in f]')" = "['done']" ] ||
		{ fail "TensorFlow's runtime entry"; last; }
else
	echo "note: no real TensorFlow (ROCMCHECK_TEST_TF_SITE unset or empty; ci/test sets it after ci/frameworks)"
fi

# A real PyTorch, when this machine's python3 has one: without a GPU it must
# say is_available() is False (or that the build is CPU-only), never pass.
if "$PYTHON" -c 'import torch' 2>/dev/null; then
	run any doctor --only framework.torch.runtime
	grep -q -e 'is_available() is False' -e 'CPU-only build' "$OUT" || { fail "real PyTorch: unexpected verdict"; last; }
else
	echo "note: no real PyTorch here: PyPI's torch for Linux x86_64 is the CUDA build (about 900 MB with its nvidia-* wheels), over this suite's budget, and the CPU-only wheel is on download.pytorch.org, not PyPI; the stand-in covers the script's paths"
fi

finish

#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. PyTorch from
# https://download.pytorch.org/whl/rocm6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Step 1 of 1 (torch): Install the PyTorch build for this GPU
# Fixes: framework.torch
# The installed PyTorch wheel is not built for this machine's GPUs: replace it
# with the rocm6.2 build, with the interpreter of the environment it is
# installed in. It runs in that environment only: without it, the script
# prints the commands.
if ! /home/alice/venv/bin/python -m pip show torch 2>/dev/null | grep -q '^Version: .*+rocm6\.2$'; then
	if [ -x /home/alice/venv/bin/python ]; then
		if ! { /home/alice/venv/bin/python -m pip uninstall -y torch torchvision torchaudio && /home/alice/venv/bin/python -m pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2; }; then
			echo 'rocmcheck plan: step torch failed; the steps before it are done' >&2
		fi
	else
		echo 'rocmcheck plan: step torch skipped: it runs in the Python environment of /home/alice/venv/bin/python. Run there:' >&2
		echo '  /home/alice/venv/bin/python -m pip uninstall -y torch torchvision torchaudio' >&2
		echo '  /home/alice/venv/bin/python -m pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2' >&2
	fi
fi

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
# with the rocm6.2 build. It runs only in an active virtual or conda
# environment: run the script there, or it prints the commands to run in one.
if ! pip show torch 2>/dev/null | grep -q '^Version: .*+rocm6\.2$'; then
	if [ -n "${VIRTUAL_ENV:-}${CONDA_PREFIX:-}" ] && command -v pip >/dev/null 2>&1; then
		if ! { pip uninstall -y torch torchvision torchaudio && pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2; }; then
			echo 'rocmcheck plan: step torch failed; the steps before it are done' >&2
		fi
	else
		echo 'rocmcheck plan: step torch skipped: it runs in an active virtual or conda environment with pip. Run there:' >&2
		echo '  pip uninstall -y torch torchvision torchaudio' >&2
		echo '  pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2' >&2
	fi
fi

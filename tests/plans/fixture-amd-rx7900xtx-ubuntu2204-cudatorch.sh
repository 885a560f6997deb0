#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (framework.torch): The installed PyTorch wheel is not built for this
# machine's GPUs: replace it with the rocm6.2 build, with the interpreter of
# the environment it is installed in.
#   /home/alice/venv/bin/python -m pip uninstall -y torch torchvision torchaudio
#   /home/alice/venv/bin/python -m pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).

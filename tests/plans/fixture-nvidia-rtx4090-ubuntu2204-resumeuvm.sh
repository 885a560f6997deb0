#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 4090 (sm_89) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (driver.nvidia_uvm): If CUDA fails now, stop the programs that use it
# and reload nvidia_uvm (first command). To keep CUDA working across suspends,
# let NVIDIA's driver save video memory and UVM state through its own suspend
# units, then reboot (rebuild the initramfs first where the nvidia module
# loads from it).
#   sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm
#   echo 'options nvidia NVreg_PreserveVideoMemoryAllocations=1' | sudo tee /etc/modprobe.d/nvidia-power-management.conf
#   sudo systemctl enable nvidia-suspend.service nvidia-hibernate.service nvidia-resume.service

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).

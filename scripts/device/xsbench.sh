#!/usr/bin/env bash
# xsbench.sh -- the XSBench port (examples/xsbench.rs, built for sm_90) beside the original (ANL-CESAR/XSBench
# ba08e52, openmp-offload/, v20) on the GPU machine, same inputs, same run: the original built by gcc 12 with
# -fopenmp -foffload=disable on the host's cores and with -foffload=nvptx-none (-misa=sm_80) on the GPU, the port on
# the same cores (OMP_TARGET_OFFLOAD=DISABLED) and on the GPU. Each prints its simulation time (mapping included)
# and the verification checksum.
# Carried: .device/bin/{xsbench,xsbench-original-cpu,xsbench-original-gcc-offload}, .device/lib (libgomp + its nvptx
# plugin), debs/ for libomptarget.   OUT=dir bash scripts/device/xsbench.sh
set -u
O=${OUT:-xsbench}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
[ -d .device/lib ] && export LD_LIBRARY_PATH=$PWD/.device/lib:$LD_LIBRARY_PATH
T=$(nproc); B=$PWD/.device/bin
pick() { grep -E "Runtime|Lookups/s|checksum|devices|Error|error" | tr '\n' ' '; echo; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "host threads: $T"
  for args in "-s small" "-s small -G nuclide" "-s large -G hash"; do
    echo "== $args original CPU:  $(OMP_NUM_THREADS=$T timeout 250 "$B/xsbench-original-cpu" $args -m event 2>&1 | pick)"
    echo "== $args original GCC offload GPU:  $(OMP_TARGET_OFFLOAD=MANDATORY timeout 250 "$B/xsbench-original-gcc-offload" $args -m event 2>&1 | pick)"
    echo "== $args port CPU:  $(OMP_NUM_THREADS=$T OMP_TARGET_OFFLOAD=DISABLED timeout 250 "$B/xsbench" $args 2>&1 | pick)"
    echo "== $args port GPU:  $(OMP_TARGET_OFFLOAD=MANDATORY timeout 250 "$B/xsbench" $args 2>&1 | pick)"
  done
} 2>&1 | tee "$O/xsbench.log"

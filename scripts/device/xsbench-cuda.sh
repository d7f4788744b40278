#!/usr/bin/env bash
# xsbench-cuda.sh -- the XSBench port (examples/xsbench.rs, built for sm_90, in .device/pack/bin.tar.xz) against XSBench's
# CUDA version (ANL-CESAR/XSBench ba08e52 `cuda/`, copied to .device/xsbench-cuda/cuda and built here with nvcc,
# SM_VERSION=90 and C++17, which CUDA 13's Thrust needs), H-M small and large, unionized grid, event-based (the CUDA version's baseline kernel), one run each.
# The CUDA version's `Runtime` spans its lookups only (its data moved to the GPU before the timer); the port's spans
# the original OpenMP-offload variant's timed region, the data region's maps included, and OMP_RS_PROFILE=1 prints
# the lookups region's `wait` (its kernel) apart.
#   OUT=/some/dir bash scripts/device/xsbench-cuda.sh      # xsbench-cuda.log goes into $OUT
set -u
[ -f .device/pack/bin.tar.xz ] && tar xJf .device/pack/bin.tar.xz -C .device
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
(cd .device/xsbench-cuda/cuda && sed -i "s/-std=c++14/-std=c++17/" Makefile && make -s SM_VERSION=90 > /tmp/xsbench-cuda-build.log 2>&1) || { cat /tmp/xsbench-cuda-build.log; exit 2; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for s in small large; do
    echo "== CUDA -s $s"; timeout 200 .device/xsbench-cuda/cuda/XSBench -s $s -m event 2>&1 | grep -E "Runtime|Lookups/s|Verification|Allocated|MB"
    echo "== port -s $s"; OMP_TARGET_OFFLOAD=MANDATORY OMP_RS_PROFILE=1 timeout 200 .device/bin/xsbench -s $s 2>&1 | grep -E -A3 "Runtime|Lookups/s|checksum|Verification|^region"
  done
} > "$OUT/xsbench-cuda.log" 2>&1
cat "$OUT/xsbench-cuda.log"

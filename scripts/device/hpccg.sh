#!/usr/bin/env bash
# hpccg.sh -- the HPCCG port (examples/hpccg.rs, built for sm_90) beside the original (Mantevo HPCCG 80dd2f1 built
# with g++ -O3 -fopenmp -DUSING_OMP -DWALL: its wall-clock timer; by default it reports CPU time of all threads) on the GPU machine, same sizes, same run:
# the original on the host's cores, the port on the same cores (OMP_TARGET_OFFLOAD=DISABLED) and on the GPU.
# .device/bin/hpccg and .device/bin/hpccg-original carried, debs/ for libomptarget.   OUT=dir bash scripts/device/hpccg.sh
set -u
O=${OUT:-hpccg}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
[ -d .device/lib ] && export LD_LIBRARY_PATH=$PWD/.device/lib:$LD_LIBRARY_PATH
T=$(nproc)
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "host threads: $T"
  for s in "64 64 64" "128 128 128" "200 200 200"; do
    echo "== $s original (OMP_NUM_THREADS=$T)"
    (B=$PWD/.device/bin; cd "$O" && OMP_NUM_THREADS=$T timeout 200 "$B/hpccg-original" $s | grep -E "Iteration = 15 |Final residual|Total  |DDOT  |WAXPBY|SPARSEMV") 2>&1 | head -12
    echo "== $s port, CPU (OMP_NUM_THREADS=$T)"
    OMP_NUM_THREADS=$T OMP_TARGET_OFFLOAD=DISABLED timeout 200 .device/bin/hpccg $s | grep -E "Iteration = 15 |Final residual|Time Summary|Difference|verification"
    echo "== $s port, GPU"
    OMP_TARGET_OFFLOAD=MANDATORY timeout 200 .device/bin/hpccg $s | grep -E "Iteration = 15 |Final residual|Time Summary|Difference|verification|devices"
  done
} 2>&1 | tee "$O/hpccg.log"

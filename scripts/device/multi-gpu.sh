#!/usr/bin/env bash
# multi-gpu.sh -- issue 11's measurements on the two-GPU machine, from the checkout's root, with .device/ carried:
# bin/omp-offload-suite, bin/heat_devices (examples/heat_devices.rs), bin/omp-mpi-heat (examples/mpi-heat), debs/
# (fetch-runtime.sh) and mpi-debs/ (fetch-mpi.sh).       OUT=/some/dir bash scripts/device/multi-gpu.sh
# 1. the offload suite on every device (its devices: checks split work over both GPUs);
# 2. heat_devices verified bit for bit against the sequential sweep on 1 and 2 GPUs;
# 3. strong scaling (one grid on 1 GPU, then on 2) and weak scaling (twice the rows on 2 GPUs), twice each, same run;
# 4. examples/mpi-heat with 1 and 2 MPI ranks, one GPU each (Open MPI unpacked by mpi-env.sh); on a one-GPU machine
#    the scaling runs are skipped and both ranks share device 0 (rank % devices).
set -u
O=${OUT:-multi-gpu}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
B=.device/bin
{
  date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  echo "== suite"; timeout 150 $B/omp-offload-suite | grep -E "passed|FAIL|devices:|skipped"
  echo "== verify"
  for bands in 1 2; do timeout 120 $B/heat_devices 2048 2048 50 $bands; done
  gpus=$(nvidia-smi -L | wc -l)
  echo "== scaling (HEAT_VERIFY=0), $gpus GPU(s)"
  [ "$gpus" -ge 2 ] && for round in 1 2; do
    for cfg in "4096 4096 400 1" "4096 4096 400 2" "16384 16384 200 1" "16384 16384 200 2" "16384 32768 200 2"; do
      # shellcheck disable=SC2086
      HEAT_VERIFY=0 timeout 120 $B/heat_devices $cfg
    done
  done
  echo "== mpi"
  if . scripts/device/mpi-env.sh .device/mpi-debs; then
    for n in 1 2; do timeout 120 orterun -n $n $B/omp-mpi-heat 96 80 200; done
    for n in 1 2; do timeout 120 orterun -n $n $B/omp-mpi-heat 16384 16384 200; done
    OMP_RS_LOG=info timeout 60 orterun -n 2 $B/omp-mpi-heat 96 80 2 2>&1 | grep -E "region .*device" | sort | uniq -c
  else
    echo "mpi-env.sh failed"
  fi
} 2>&1 | tee "$O/multi-gpu.log"

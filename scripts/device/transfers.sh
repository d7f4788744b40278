#!/usr/bin/env bash
# transfers.sh -- on the GPU machine, from the checkout's root with .device/ carried (bin.tar.xz holding
# transfer-bench, debs/): host-device copy bandwidth of omp-rs's data constructs (offload-suite's transfer-bench)
# and of CUDA's cudaMemcpy from pageable, registered and pinned memory (bench/cuda/transfers.cu, built here with
# nvcc), TRANSFER_GIB GiB (default 4), in one run.
#   OUT=/some/dir bash scripts/device/transfers.sh      # transfers.md goes into $OUT
set -u
tar xJf .device/bin.tar.xz -C .device
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
G=${TRANSFER_GIB:-4}
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc -O3 -arch=sm_90 bench/cuda/transfers.cu -o /tmp/transfers && timeout 120 /tmp/transfers "$G"
  echo
  TRANSFER_GIB=$G timeout 200 .device/bin/transfer-bench; echo "transfer-bench rc=$?"
} > "$OUT/transfers.md" 2>&1
cat "$OUT/transfers.md"

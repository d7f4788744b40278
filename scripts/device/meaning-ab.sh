#!/usr/bin/env bash
# meaning-ab.sh -- the H200 run of the "kernel means what the host code means" work, on the GPU machine from the
# checkout's root with .device/ carried (bin/omp-offload-suite and bin/omp-bench of this commit, bin/omp-bench-<old>
# of the commit before, debs/). Needs nvcc there (the CUDA baseline).
#   OUT=/some/dir bash scripts/device/meaning-ab.sh
# The offload suite as it is and under OMP_RS_CHECK=host (every region re-run on the host and compared), then the
# CUDA baseline once and every .device/bin/omp-bench* twice, alternating (omp-gpu only, default size, --repeats 5).
set -u
O=${OUT:-meaning-ab}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== offload suite"; timeout 150 .device/bin/omp-offload-suite | grep -E "passed|FAIL|seed"
  echo "== offload suite, OMP_RS_CHECK=host"; OMP_RS_CHECK=host timeout 150 .device/bin/omp-offload-suite | grep -E "passed|FAIL|seed"
} 2>&1 | tee "$O/suite.log"
C=/tmp/omp-bench-cuda
BUILD_DIR=$C bash bench/cuda/run.sh --size default --repeats 5 --json "$O/cuda.json" > "$O/cuda.log" 2>&1
echo "cuda rc=$?"
ceiling=$(grep -o '"gbs": *[0-9.eE+-]*' "$O/cuda.json" | head -n 1 | sed 's/.*: *//')
for round in 1 2; do
  for b in .device/bin/omp-bench*; do
    n=$(basename "$b")
    timeout 200 "$b" --variants omp-gpu --baseline omp-gpu --size default --repeats 5 --quiet \
        --device-ceiling-gbs "$ceiling" --json "$O/$n-$round.json" > "$O/$n-$round.log" 2>&1
    echo "$n round $round rc=$?"
  done
done

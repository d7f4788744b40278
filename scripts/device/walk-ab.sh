#!/usr/bin/env bash
# walk-ab.sh -- the kernel-walk measurement of bench/RESULTS.md (2026-12-01, issue 9 item 7), on the GPU machine from
# the checkout's root, .device/ carried (bin/omp-bench of this commit, bin/omp-bench-<old> of the commit before,
# bin/omp-offload-suite, bin/offload-bench; debs/). Needs nvcc there (the CUDA baseline).
#   OUT=/some/dir bash scripts/device/walk-ab.sh
# The suite, three rounds of offload-bench against CUDA's launch probe, the CUDA baseline once, then every
# .device/bin/omp-bench* twice, alternating (omp-gpu only, default size,
# --repeats 5), so that each binary's ratio against the same CUDA run comes with its own run-to-run spread.
set -u
O=${OUT:-walk-ab}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
[ -d .device/lib ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/.device/lib
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  timeout 120 .device/bin/omp-offload-suite | grep -E "passed|FAIL"
  # Launch costs: offload-bench and CUDA's launch probe (bench/cuda/launch.cu) alternating, three rounds.
  nvcc -O3 -arch=sm_90 bench/cuda/launch.cu -o /tmp/launch 2>&1 | tail -3
  for round in 1 2 3; do
    echo "== round $round"; timeout 60 .device/bin/offload-bench; /tmp/launch 20000
  done
} 2>&1 | tee "$O/suite.log"
C=/tmp/omp-bench-cuda
BUILD_DIR=$C bash bench/cuda/run.sh --size default --repeats 5 --json "$O/cuda.json" > "$O/cuda.log" 2>&1
echo "cuda rc=$?"
for round in 1 2; do
  for b in .device/bin/omp-bench*; do
    n=$(basename "$b")
    timeout 150 "$b" --variants omp-gpu --baseline omp-gpu --size default --repeats 5 --quiet \
        --device-ceiling-gbs "$(grep -o '"gbs": *[0-9.eE+-]*' "$O/cuda.json" | head -n 1 | sed 's/.*: *//')" \
        --json "$O/$n-$round.json" > /dev/null 2>&1
    echo "$n round $round rc=$?"
  done
done
# LARGE=1: the streaming kernels at 32e6 (20 reps), CUDA then every omp-bench once, against the CUDA copy ceiling.
if [ "${LARGE:-0}" = 1 ]; then
  K=Stream_ADD,Stream_COPY,Stream_DOT,Stream_MUL,Stream_TRIAD,Basic_DAXPY,Basic_INIT3,Lcals_HYDRO_1D,Lcals_FIRST_DIFF,Apps_FIR
  BUILD_DIR=$C bash bench/cuda/run.sh --size 32000000 --reps 20 --repeats 3 --kernels $K --json "$O/cuda-32m.json" \
      > "$O/cuda-32m.log" 2>&1
  echo "cuda 32e6 rc=$?"
  for b in .device/bin/omp-bench*; do
    n=$(basename "$b")
    timeout 150 "$b" --variants omp-gpu --baseline omp-gpu --size 32000000 --reps 20 --repeats 3 --kernels $K --quiet \
        --device-ceiling-gbs "$(grep -o '"gbs": *[0-9.eE+-]*' "$O/cuda-32m.json" | head -n 1 | sed 's/.*: *//')" \
        --json "$O/$n-32m.json" > /dev/null 2>&1
    echo "$n 32e6 rc=$?"
  done
fi

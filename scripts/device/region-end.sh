#!/usr/bin/env bash
# region-end.sh -- the H200 run of OpenMP's end of region (a region without `nowait` has finished when it ends), on
# the GPU machine from the checkout's root with .device/ carried: bin/ holding this commit's omp-offload-suite,
# offload-bench, examples (advect1d, jacobi2d) and omp-bench, and earlier commits' omp-bench-<commit>; debs/.
# Needs nvcc there (the CUDA baselines).
#   OUT=/some/dir bash scripts/device/region-end.sh      # everything goes into $OUT/region-end.tgz
# 1. the offload suite as it is and under OMP_RS_CHECK=host;
# 2. launch + wait and queued launch costs: offload-bench (a host clock around each region without `nowait`, `nowait`
#    regions back to back, BabelStream's triad on 2^25 doubles timed per region) against CUDA's launch probe
#    (bench/cuda/launch.cu), three rounds; CUDA's Stream_TRIAD at 2^25 (RAJAPerf kernel, 20 reps);
# 3. the examples advect1d (ten `nowait` regions per step) and jacobi2d (regions that wait);
# 4. RAJAPerf's kernels at the default size: the CUDA baseline once, every .device/bin/omp-bench* twice, alternating.
set -u
O=/tmp/region-end; rm -rf "$O"; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
B=.device/bin
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== offload suite"; timeout 150 $B/omp-offload-suite | grep -E "passed|FAIL|seed"
  echo "== offload suite, OMP_RS_CHECK=host"; OMP_RS_CHECK=host timeout 150 $B/omp-offload-suite | grep -E "passed|FAIL|seed"
  nvcc -O3 -arch=sm_90 bench/cuda/launch.cu -o /tmp/launch 2>&1 | tail -3
  for round in 1 2 3; do
    echo "== round $round"; timeout 90 $B/offload-bench; /tmp/launch 20000
  done
  echo "== examples"
  for e in advect1d jacobi2d; do timeout 120 $B/$e; done
  echo "== advect1d, OMP_RS_LAUNCH=wait (every region waits)"; OMP_RS_LAUNCH=wait timeout 120 $B/advect1d
} > "$O/suite.log" 2>&1
C=/tmp/omp-bench-cuda
BUILD_DIR=$C bash bench/cuda/run.sh --size default --repeats 5 --json "$O/cuda.json" > "$O/cuda.log" 2>&1
echo "cuda rc=$?" >> "$O/suite.log"
$C/omp-bench-cuda --size 33554432 --reps 20 --repeats 3 --kernels Stream_TRIAD,Stream_COPY --json "$O/cuda-2p25.json" > "$O/cuda-2p25.log" 2>&1
echo "cuda 2^25 rc=$?" >> "$O/suite.log"
ceiling=$(grep -o '"gbs": *[0-9.eE+-]*' "$O/cuda.json" | head -n 1 | sed 's/.*: *//')
for round in 1 2; do
  for b in $B/omp-bench*; do
    n=$(basename "$b")
    timeout 200 "$b" --variants omp-gpu --baseline omp-gpu --size default --repeats 5 --quiet \
        --device-ceiling-gbs "$ceiling" --json "$O/$n-$round.json" > "$O/$n-$round.log" 2>&1
    echo "$n round $round rc=$?" >> "$O/suite.log"
  done
done
tar czf "${OUT:-.}/region-end.tgz" -C "$O" .
cat "$O/suite.log"

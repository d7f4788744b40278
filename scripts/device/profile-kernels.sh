#!/usr/bin/env bash
# profile-kernels.sh -- Nsight Compute numbers of chosen RAJAPerf kernels, omp-gpu beside the CUDA baseline, on the
# GPU machine (from the checkout's root, .device/ carried: bin/omp-bench, debs/). Needs nvcc and ncu there.
#   OUT=/some/dir KERNELS=Apps_FIR,Polybench_GEMM bash scripts/device/profile-kernels.sh
# Writes $OUT/ncu-cuda.csv and $OUT/ncu-omp.csv: per launch, time, registers, grid, achieved occupancy, instructions,
# DRAM / L2 / L1 bytes. Then, without the profiler, times every binary named .device/bin/omp-bench* (e.g. builds with
# different OMP_RS_PTXAS_ARGS) next to the CUDA baseline, --repeats 3, on TIME_KERNELS (default: all): $OUT/time-*.json.
set -u
O=${OUT:-profile}; mkdir -p "$O"
K=${KERNELS:-Apps_FIR,Apps_VOL3D,Polybench_GEMM,Basic_NESTED_INIT,Polybench_ATAX,Polybench_JACOBI_2D}
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
[ -d .device/lib ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/.device/lib
export OMP_TARGET_OFFLOAD=MANDATORY
M=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes.sum,lts__t_bytes.sum
M=$M,l1tex__t_bytes.sum
C=/tmp/omp-bench-cuda
BUILD_DIR=$C bash bench/cuda/run.sh --build-only > "$O/cuda-build.log" 2>&1 || { echo "CUDA build failed" >&2; cat "$O/cuda-build.log"; exit 2; }
args=(--kernels "$K" --size default --no-warmup --reps 1)
timeout 120 ncu --csv --metrics "$M" -c 200 $C/omp-bench-cuda "${args[@]}" --ceiling-gbs 1 > "$O/ncu-cuda.csv" 2> "$O/ncu-cuda.err"
echo "ncu cuda rc=$?"
timeout 120 ncu --csv --metrics "$M" -c 200 .device/bin/omp-bench --variants omp-gpu --baseline omp-gpu --quiet "${args[@]}" \
    > "$O/ncu-omp.csv" 2> "$O/ncu-omp.err"
echo "ncu omp rc=$?"
T=(); [ -n "${TIME_KERNELS:-}" ] && T=(--kernels "$TIME_KERNELS")
timeout 150 $C/omp-bench-cuda "${T[@]}" --size default --repeats 3 --json "$O/time-cuda.json" > /dev/null 2>&1
echo "cuda time rc=$?"
for b in .device/bin/omp-bench*; do
    n=$(basename "$b")
    timeout 150 "$b" "${T[@]}" --variants omp-gpu --baseline omp-gpu --size default --repeats 3 --quiet \
        --json "$O/time-$n.json" > /dev/null 2>&1
    echo "$n time rc=$?"
done

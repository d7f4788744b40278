#!/usr/bin/env bash
# Builds the CUDA baseline of omp-bench and runs it on the GPU machine.
#
#   bench/cuda/run.sh                         # build, run every kernel at the default size
#   bench/cuda/run.sh --size small --kernels Stream,Apps_FIR --json out.json
#   bench/cuda/run.sh --build-only
#
# Arguments other than --build-only go to omp-bench-cuda (see main.cu). Without --json the
# results go to $BUILD_DIR/cuda.json. Merge them with a Rust run:
#   omp-bench --merge rust.json,cuda.json --plot plots/
#
# Environment: NVCC (default nvcc), CUDA_ARCH (default sm_90), BUILD_DIR (default
# bench/cuda/build), CC (host C compiler for ../csrc/rpdata.c, default gcc), NVCC_EXTRA, FMAD.
#
# --fmad=false: Rust never contracts a*b+c into an FMA, and the reference checksums come from a
# -ffp-contract=off build, so the baseline does not either; checksums then match seq closely
# and the comparison with omp-gpu is like for like. Set FMAD=true to measure nvcc's default
# (against omp-bench built with OMP_RS_FP_CONTRACT=fast).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/build}
nvcc=${NVCC:-nvcc}
arch=${CUDA_ARCH:-sm_90}
mkdir -p "$build"

build_only=0
args=()
for a in "$@"; do
    if [[ $a == --build-only ]]; then build_only=1; else args+=("$a"); fi
done

"${CC:-gcc}" -O2 -std=c99 -ffp-contract=off -c "$here/../csrc/rpdata.c" -o "$build/rpdata.o"
# shellcheck disable=SC2086
"$nvcc" -O3 -arch="$arch" --fmad="${FMAD:-false}" -std=c++17 -Xcompiler -ffp-contract=off ${NVCC_EXTRA:-} \
    "$here"/main.cu "$here"/stream.cu "$here"/basic.cu "$here"/lcals.cu "$here"/polybench.cu \
    "$here"/apps.cu "$build/rpdata.o" -o "$build/omp-bench-cuda"
echo "built $build/omp-bench-cuda" >&2
[[ $build_only == 1 ]] && exit 0

has_json=0
for a in "${args[@]+"${args[@]}"}"; do [[ $a == --json ]] && has_json=1; done
if [[ $has_json == 0 ]]; then args+=(--json "$build/cuda.json"); fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >&2 || true
"$build/omp-bench-cuda" "${args[@]}"

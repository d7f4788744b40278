#!/usr/bin/env bash
# gpu-run.sh -- the omp-gpu benchmark on the GPU machine, with the CUDA baseline beside it.
#
# Run from the checkout's root on the GPU machine, with the binaries built on the dev machine
# (see bench/README.md, "GPU run"):
#   .device/bin/omp-bench    stripped `cargo build --release -p omp-bench` (sm_90 images inside)
#   .device/debs/            LLVM 22 libomptarget, from scripts/device/fetch-runtime.sh
#   .device/lib/             optional: shared libraries the GPU machine lacks (e.g. libgomp.so.1)
#
#   OUT=/some/dir bash bench/gpu-run.sh        # results in $OUT (default ./gpu-bench)
#
# Steps:
#   1. libomptarget: . scripts/device/runtime-env.sh .device/debs
#   2. CUDA baseline: bench/cuda/run.sh (nvcc -O3 -arch=sm_90) -> $OUT/cuda.json; its device
#      copy kernel is the bandwidth ceiling of omp-gpu too
#   3. omp-bench --variants seq,omp-gpu --size default under OMP_TARGET_OFFLOAD=MANDATORY
#      (a target region that does not run on the GPU is an error) -> $OUT/omp-gpu.json
#   4. omp-bench --merge -> $OUT/gpu.md (tables + checksum checks), $OUT/gpu.json, and the plots
#      $OUT/time_ratio.svg, $OUT/bandwidth.svg
# Everything printed also goes to $OUT/gpu-run.log.
#
# Environment: OUT; SIZE (default `default`); BENCH_ARGS (more omp-bench arguments, e.g.
# "--repeats 3" or "--kernels Stream"); CUDA_ARGS (more bench/cuda/run.sh arguments); SKIP_CUDA=1
# runs omp-bench alone. Exit status: omp-bench's (1 = a checksum mismatch), or 2 on setup errors.
set -uo pipefail

OUT=${OUT:-gpu-bench}
SIZE=${SIZE:-default}
B=.device/bin

die() { echo "gpu-run.sh: $*" >&2; exit 2; }

main() {
    [ -f bench/gpu-run.sh ] || die "run this from the root of the omp-rs checkout"
    [ -x $B/omp-bench ] || die "$B/omp-bench missing: build and strip it on the dev machine (bench/README.md)"
    date -u
    . scripts/device/runtime-env.sh .device/debs || die "libomptarget setup failed (see above)"
    if [ -d .device/lib ]; then
        export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/.device/lib
    fi
    local missing
    missing=$(ldd $B/omp-bench | awk '/not found/{print $1}' | tr '\n' ' ')
    [ -z "$missing" ] || die "$B/omp-bench needs $missing: copy them from the dev machine into .device/lib"
    export OMP_TARGET_OFFLOAD=MANDATORY

    local files=() ceiling=() gbs status
    if [ "${SKIP_CUDA:-0}" != 1 ]; then
        echo "== CUDA baseline (bench/cuda/run.sh)"
        # shellcheck disable=SC2086
        if BUILD_DIR=${BUILD_DIR:-/tmp/omp-bench-cuda} bench/cuda/run.sh --size "$SIZE" \
            --json "$OUT/cuda.json" ${CUDA_ARGS:-}; then
            files+=("$OUT/cuda.json")
            gbs=$(grep -o '"gbs": *[0-9.eE+-]*' "$OUT/cuda.json" | head -n 1 | sed 's/.*: *//')
            [ -n "$gbs" ] && ceiling=(--device-ceiling-gbs "$gbs")
        else
            echo "gpu-run.sh: the CUDA baseline failed; continuing with omp-gpu alone" >&2
        fi
    fi

    echo "== omp-bench seq,omp-gpu (OMP_TARGET_OFFLOAD=MANDATORY)"
    # shellcheck disable=SC2086
    $B/omp-bench --variants seq,omp-gpu --size "$SIZE" --quiet "${ceiling[@]}" ${BENCH_ARGS:-} \
        --json "$OUT/omp-gpu.json" >/dev/null
    status=$?
    [ -f "$OUT/omp-gpu.json" ] || die "omp-bench wrote no results (exit status $status)"
    files=("$OUT/omp-gpu.json" "${files[@]}")

    echo "== merged report"
    $B/omp-bench --merge "$(IFS=,; echo "${files[*]}")" --json "$OUT/gpu.json" \
        --markdown "$OUT/gpu.md" --plot "$OUT"
    local merge_status=$?
    [ "$status" -ne 0 ] || status=$merge_status
    echo "gpu-run.sh: exit status $status; results in $OUT"
    return $status
}

mkdir -p "$OUT" || exit 2
main 2>&1 | tee "$OUT/gpu-run.log"
exit "${PIPESTATUS[0]}"

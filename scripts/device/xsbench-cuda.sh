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
# The issue's yardstick for the port's timed region is CUDA's kernel plus `cudaMemcpy` of the same bytes, so a
# copy of the CUDA version also times its own H2D copies of the grids (outside its `Runtime`, as before) and one
# D2H copy of the `verification` array into freshly `malloc`ed pages, the bytes the OpenMP original maps back.
X=/tmp/xsbench-cuda-copies; rm -rf "$X"; cp -r .device/xsbench-cuda/cuda "$X"
{
  echo '#include "XSbench_header.cuh"'
  echo 'static double xs_h2d_seconds = 0, xs_h2d_bytes = 0;'
  echo 'static cudaError_t xs_timed_memcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {'
  echo '  double t0 = get_time(); cudaError_t e = cudaMemcpy(d, s, n, k);'
  echo '  xs_h2d_seconds += get_time() - t0; xs_h2d_bytes += n; return e; }'
  grep -v '^#include "XSbench_header.cuh"' .device/xsbench-cuda/cuda/GridInit.cu |
    sed -e 's/gpuErrchk( cudaMemcpy(/gpuErrchk( xs_timed_memcpy(/' \
        -e 's|^\tif(mype == 0 ) printf("GPU Intialization complete.|\t{ size_t vb = in.lookups * sizeof(unsigned long); unsigned long *h = (unsigned long *) malloc(vb); double t0 = get_time(); gpuErrchk( cudaMemcpy(h, GSD.verification, vb, cudaMemcpyDeviceToHost) ); double t1 = get_time(); printf("cudaMemcpy of the same bytes: H2D %.4f s for %.1f MB (pageable), D2H %.4f s for %.1f MB (fresh malloc pages)\\n", xs_h2d_seconds, xs_h2d_bytes / 1e6, t1 - t0, vb / 1e6); free(h); }\n&|'
} > "$X/GridInit.cu.new" && mv "$X/GridInit.cu.new" "$X/GridInit.cu"
(cd "$X" && sed -i "s/-std=c++14/-std=c++17/" Makefile && make -s SM_VERSION=90 > /tmp/xsbench-cuda-build.log 2>&1) || { cat /tmp/xsbench-cuda-build.log; exit 2; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for s in small large; do
    echo "== CUDA -s $s"; timeout 200 "$X"/XSBench -s $s -m event 2>&1 | grep -E "Runtime|Lookups/s|Verification|Allocated|MB|cudaMemcpy"
    echo "== port -s $s"; OMP_TARGET_OFFLOAD=MANDATORY OMP_RS_PROFILE=1 timeout 200 .device/bin/xsbench -s $s 2>&1 | grep -E -A3 "Runtime|Lookups/s|checksum|Verification|^region"
  done
} > "$OUT/xsbench-cuda.log" 2>&1
cat "$OUT/xsbench-cuda.log"

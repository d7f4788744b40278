#!/usr/bin/env bash
# sass.sh -- the SASS of GPU kernels on a machine without a GPU: a kernel of the ports' sm_90 image and a kernel of a
# HeCBench CUDA program compiled as its Makefile does (`nvcc -O3 -arch=sm_90`), for reading what a thread executes
# (bench/RESULTS.md quotes such paths). The tools come from NVIDIA's pip wheels (nvcc, cicc, the CUDA headers,
# nvdisasm), unpacked once into $OMP_RS_HOME/sass-tools.
#   bash scripts/sass.sh port stddev_1                      # after OMP_RS_OFFLOAD_ARCH=sm_90 cargo build --release -p omp-ports
#   bash scripts/sass.sh cuda path/to/HeCBench/src/stddev-cuda sopKernel
# Prints the kernel's instructions (addresses, no encodings) and, on stderr, how many there are.
set -euo pipefail
OMP_RS_HOME=${OMP_RS_HOME:-$HOME/.cache/omp-rs}
T=$OMP_RS_HOME/sass-tools
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

tools() {
  [ -x "$T/nvidia/cu13/bin/nvcc" ] && [ -x "$T/nvidia/cu13/bin/nvdisasm" ] && return
  local w; w=$(mktemp -d)
  pip download --quiet --no-deps -d "$w" nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime nvidia-cuda-nvdisasm >&2
  mkdir -p "$T"
  for f in "$w"/*.whl; do python3 -m zipfile -e "$f" "$T" >/dev/null; done
  chmod +x "$T"/nvidia/cu13/bin/* "$T"/nvidia/cu13/nvvm/bin/*
  rm -rf "$w"
}

# The instructions of the one kernel whose name contains $2 in cubin $1.
kernel() {
  "$T/nvidia/cu13/bin/nvdisasm" -c "$1" |
    awk -v k="$2" '/^\/\/-+ \.text\./ { p = index($0, k) > 0 } p' |
    grep -E '^\s+/\*[0-9a-f]+\*/|^\.L' | sed -E 's| +| |g; s|/\* 0x[0-9a-f]+ \*/||'
}

count() { tee >(grep -c '^ /\*' | sed 's/^/instructions: /' >&2); }

case ${1:-} in
  port)
    tools
    cubin=$(ls -t "$REPO"/target/release/build/omp-ports-*/out/omp-rs/*.sm_90.cubin | head -1)
    kernel "$cubin" "omp_${2:?kernel name}" | count ;;
  cuda)
    tools
    dir=${2:?HeCBench program folder}; out=$(mktemp -d)
    for cu in "$dir"/*.cu; do
      (cd "$dir" && "$T/nvidia/cu13/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -cubin -o "$out/$(basename "$cu" .cu).cubin" "$cu" 2>/dev/null) || true
    done
    for c in "$out"/*.cubin; do kernel "$c" "${3:?kernel name}"; done | count
    rm -rf "$out" ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
esac

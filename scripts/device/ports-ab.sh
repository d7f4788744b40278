#!/usr/bin/env bash
# ports-ab.sh -- some ports of the panel in several builds against their CUDA versions, in one call on the GPU
# machine: each port in PORTS runs as .device/bin/<name><variant> for every variant in VARIANTS ("" is the default
# build; a missing binary is skipped), each at its header's `device-args`, then the ports' CUDA versions as written
# and under CUDA_LAUNCH_BLOCKING=1 (scripts/device/panel-cuda.sh with ONLY, BLOCKING=1). With NCU="<port>:<kernel
# regex>:<cuda kernel regex> ..." it also profiles one launch of each named kernel of the default build and of the CUDA
# version (Nsight Compute, `--clock-control none`; warp states, source counters, instruction statistics).
# From the checkout's root with .device/{debs,bin,hecbench} carried (as for scripts/device/ports.sh).
#   OUT=/some/dir PORTS="stddev nbody" VARIANTS="'' -fast" bash scripts/device/ports-ab.sh   # into $OUT/ports-ab.tgz
# Each result line also goes into $OUT/panel-progress.log as soon as it ran.
set -u
O=/tmp/ports-ab; rm -rf "$O"; mkdir -p "$O/cuda"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
P="${OUT:-.}/panel-progress.log"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee -a "$P" > "$O/gpu.txt"
# The HeCBench folder of a port's CUDA version: the first `src/<name>-omp` or `src/<name>-cuda` its header names.
cuda_dir() { grep -m1 -oE 'src/[a-zA-Z0-9-]*-(omp|cuda)' "$1" | head -1 | sed 's|src/||; s|-omp$|-cuda|'; }
# A port's `device-args` header line, into the array `args`.
device_args() { read -r -a args <<< "$(grep -m1 '^//! device-args:' "$1" | sed 's|^//! device-args:||')"; }
read -r -a variants <<< "${VARIANTS:-''}"
cuda_dirs=""
for name in ${PORTS:?}; do
  src=ports/src/bin/$name.rs
  device_args "$src"
  for v in "${variants[@]}"; do
    v=${v//\'/}
    [ -x ".device/bin/$name$v" ] || continue
    ( timeout 100 ".device/bin/$name$v" "${args[@]}" ) > "$O/port-$name$v.log" 2>&1
    echo "port $name$v ${args[*]} rc=$? $(grep -E '^(PASS|FAIL)$' "$O/port-$name$v.log" | tail -1) $(grep -E '^(kernel time:|Total time)' "$O/port-$name$v.log" | tail -1)" |
      tee -a "$P"
  done
  cuda_dirs="$cuda_dirs $(cuda_dir "$src")"
done
tar czf "${OUT:-.}/ports-ab.tgz" -C "$O" .
# OUT= : panel-cuda.sh would copy each log into $OUT; here they travel in the archive.
OUT= ONLY="$cuda_dirs geodesic-cuda" BLOCKING=1 bash scripts/device/panel-cuda.sh "$O/cuda" > "$O/cuda/cuda.log" 2>&1
cat "$O/cuda/cuda.log" >> "$P"
tar czf "${OUT:-.}/ports-ab.tgz" -C "$O" .
H=$PWD/.device/hecbench/src
S="--clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters --section MemoryWorkloadAnalysis"
for spec in ${NCU:-}; do
  IFS=: read -r name kport kcuda <<< "$spec"
  src=ports/src/bin/$name.rs
  device_args "$src"
  dir=$(cuda_dir "$src")
  timeout 120 ncu $S -k "regex:$kport" -s 1 -c 1 ".device/bin/$name" "${args[@]}" > "$O/ncu-port-$name.txt" 2>&1
  echo "ncu port $name rc=$?" | tee -a "$P"
  timeout 60 ncu --clock-control none -k "regex:$kport" -s 1 -c 1 --page source --print-source sass --csv ".device/bin/$name" "${args[@]}" > "$O/ncu-port-$name-sass.csv" 2>&1
  echo "ncu port $name sass rc=$?" | tee -a "$P"
  ( cd "$H/$dir" && timeout 120 ncu $S -k "regex:$kcuda" -s 1 -c 1 ./main "${args[@]}" ) > "$O/ncu-cuda-$name.txt" 2>&1
  echo "ncu cuda $name rc=$?" | tee -a "$P"
  ( cd "$H/$dir" && timeout 60 ncu --clock-control none -k "regex:$kcuda" -s 1 -c 1 --page source --print-source sass --csv ./main "${args[@]}" ) > "$O/ncu-cuda-$name-sass.csv" 2>&1
  echo "ncu cuda $name sass rc=$?" | tee -a "$P"
  tar czf "${OUT:-.}/ports-ab.tgz" -C "$O" .
done

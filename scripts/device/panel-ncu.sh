#!/usr/bin/env bash
# panel-ncu.sh -- Nsight Compute profiles of the ports panel's slow programs and of their CUDA versions, at sizes
# that keep each run short, for bench/results/*-ports*/. From the checkout's root on the GPU machine, with
# .device/{debs,bin,hecbench} as for ports.sh (the CUDA versions already built by panel-cuda.sh, or built here).
#   OUT=/some/dir bash scripts/device/panel-ncu.sh      # $OUT/ncu.tgz: one ncu-<program>.txt per run
set -u
O=/tmp/ncu; rm -rf "$O"; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
H=$PWD/.device/hecbench/src
[ -f "$H/geodesic-cuda/locations.txt" ] || bash scripts/device/panel-cuda.sh --inputs-only
for d in "$H"/*-cuda; do
  [ -x "$d/main" ] || ( cd "$d" && make -s ARCH=sm_90 > /dev/null 2>&1 ) &
done
wait
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
prof() { # name kernel-regex skip count -- command...
  local name=$1 k=$2 s=$3 c=$4; shift 5
  timeout 120 ncu --clock-control none $SECTIONS -k "regex:$k" -s "$s" -c "$c" "$@" > "$O/ncu-$name.txt" 2>&1
  echo "$name rc=$?"
}
{
  B=.device/bin
  prof port-nbody 'accel|accum' 0 2 -- $B/nbody 16000 3
  prof cuda-nbody 'accel|accum' 0 2 -- bash -c "cd $H/nbody-cuda && ./main 16000 3"
  prof port-bitonic bitonic 200 1 -- $B/bitonic_sort 22 1
  prof cuda-bitonic bitonic 200 1 -- bash -c "cd $H/bitonic-sort-cuda && ./main 22 1"
  prof port-iso2dfd iso 5 1 -- $B/iso2dfd 2048 2048 20
  prof cuda-iso2dfd iso 5 1 -- bash -c "cd $H/iso2dfd-cuda && ./main 2048 2048 20"
  prof port-laplace solve 8 4 -- $B/laplace 512   # 1024 verifies on the host for minutes
  prof cuda-laplace . 8 4 -- bash -c "cd $H/laplace-cuda && ./main"
  prof port-mandelbrot . 2 1 -- $B/mandelbrot 10
  prof cuda-mandelbrot . 2 1 -- bash -c "cd $H/mandelbrot-cuda && ./main 10"
  prof port-spm . 2 1 -- $B/spm 256 5
  prof cuda-spm . 2 1 -- bash -c "cd $H/spm-cuda && ./main 256 5"
  prof port-haversine . 2 1 -- $B/haversine @synthetic 5
  prof cuda-haversine . 2 1 -- bash -c "cd $H/haversine-cuda && ./main ../geodesic-cuda/locations.txt 5"
} > "$O/ncu.log" 2>&1
tar czf "${OUT:-.}/ncu.tgz" -C "$O" .
cat "$O/ncu.log"

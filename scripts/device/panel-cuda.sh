#!/usr/bin/env bash
# panel-cuda.sh OUTDIR -- builds (nvcc, `make ARCH=sm_90`) and runs the CUDA versions of the ports panel's HeCBench
# programs, each at its Makefile's run line (the ports' `device-args`), logging to OUTDIR/cuda-<name>.log.
# HeCBench is not part of this repository: copy the programs' `src/<name>-cuda` folders of a HeCBench checkout
# (github zjin-lcf/HeCBench; the ports name their commit) into .device/hecbench/src/ and carry .device/hecbench.
# Called by `CUDA=1 scripts/device/ports.sh`; `--inputs-only` writes the programs' input files and stops.
# With `BLOCKING=1` each program runs a second time under `CUDA_LAUNCH_BLOCKING=1` (every kernel launch returns when
# the kernel has finished: OpenMP's end of region for a region without `nowait`), logging to
# OUTDIR/blocking/cuda-<name>.log (`scripts/panel-table.py ... --blocking OUTDIR/blocking`); `BLOCKING=only` runs that
# pass alone (the two passes of the whole panel take longer than one device call may). `ONLY="stddev-cuda nbody-cuda"`
# builds and runs those programs alone.
set -u
O=$1
H=$PWD/.device/hecbench/src
[ -d "$H" ] || { echo "panel-cuda.sh: no $H (see the header)" >&2; exit 2; }
# haversine's input: the geodesic program reads a locations file, the same synthetic points the port generates.
# HeCBench's geodesic-cuda/locations.txt is a symbolic link into an untracked file: replace it.
mkdir -p "$H/geodesic-cuda"; rm -f "$H/geodesic-cuda/locations.txt"
awk 'BEGIN { for (k = 0; k < 2097152; k++) printf "%.3f %.3f\n", (k * 7919 % 180000) / 1000.0 - 90.0, (k * 104729 % 360000) / 1000.0 - 180.0 }' > "$H/geodesic-cuda/locations.txt"
[ "$O" = --inputs-only ] && exit 0
chosen() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
for d in "$H"/*-cuda; do
  [ -f "$d/Makefile" ] || continue
  chosen "$(basename "$d")" || continue
  ( cd "$d" && make -s ARCH=sm_90 > "$O/build-$(basename "$d").log" 2>&1 ) &
done
wait
# Each log is copied to $OUT as soon as its program ran: a call cut short by its time limit still brings it back.
run() {
  local name=$1; shift
  chosen "$name" || return 0
  if [ "${BLOCKING:-0}" != only ]; then
    ( cd "$H/$name" && timeout 100 ./main "$@" ) > "$O/cuda-$name.log" 2>&1
    echo "cuda $name $* rc=$?" | tee -a "${OUT:-.}/panel-progress.log"
    [ -n "${OUT:-}" ] && cp "$O/cuda-$name.log" "$OUT/"
  fi
  if [ "${BLOCKING:-0}" != 0 ]; then
    mkdir -p "$O/blocking"
    ( cd "$H/$name" && CUDA_LAUNCH_BLOCKING=1 timeout 100 ./main "$@" ) > "$O/blocking/cuda-$name.log" 2>&1
    echo "cuda $name $* CUDA_LAUNCH_BLOCKING=1 rc=$?" | tee -a "${OUT:-.}/panel-progress.log"
    [ -n "${OUT:-}" ] && mkdir -p "$OUT/blocking" && cp "$O/blocking/cuda-$name.log" "$OUT/blocking/"
  fi
}
run bitonic-sort-cuda 25 2
run black-scholes-cuda 100
run hausdorff-cuda 100000 100000 100
run haversine-cuda ../geodesic-cuda/locations.txt 100
run iso2dfd-cuda 2048 2048 1000
run laplace-cuda
run mandelbrot-cuda 1000
run minmax-cuda 100000 1000
run nbody-cuda 16000 10
run norm2-cuda 100
run page-rank-cuda -n 20000 -i 100
run scatterAdd-cuda 10000000 32 8 1000
run spm-cuda 256 1000
run reverse-cuda 100
run stddev-cuda 8192 16384 100
run nlll-cuda 2048 1000 1000
run bsearch-cuda 8388608 100

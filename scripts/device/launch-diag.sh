#!/usr/bin/env bash
# launch-diag.sh -- on the GPU machine, from the checkout's root with .device/ carried (bin.tar.xz of the release
# ports, debs/, hecbench/): where the launch-bound ports' time goes. laplace under the launch modes and lane counts
# (`queued` leaves the update regions unwaited: what is left is the host's launch work and the reductions' waits),
# iso2dfd and bitonic_sort with one lane, then haversine's CUDA version against the port.
#   OUT=/some/dir bash scripts/device/launch-diag.sh      # cuda-haversine-cuda.log goes into $OUT
set -u
tar xJf .device/bin.tar.xz -C .device
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1
export OMP_TARGET_OFFLOAD=MANDATORY
for v in "" "OMP_RS_LANES=1" "OMP_RS_LAUNCH=queued" "OMP_RS_LAUNCH=sync" "OMP_RS_LANES=1 OMP_RS_LAUNCH=queued"; do
  echo "laplace [$v] $(env $v timeout 30 .device/bin/laplace 1024 2>&1 | grep 'Total time')"
done
for v in "" "OMP_RS_LANES=1"; do
  echo "iso2dfd [$v] $(env $v timeout 30 .device/bin/iso2dfd 2048 2048 1000 2>&1 | grep 'Average kernel')"
  echo "bitonic [$v] $(env $v timeout 30 .device/bin/bitonic_sort 25 2 2>&1 | grep 'Total kernel')"
done
H=$PWD/.device/hecbench/src
rm -f $H/geodesic-cuda/locations.txt
awk 'BEGIN { for (k = 0; k < 2097152; k++) printf "%.3f %.3f\n", (k * 7919 % 180000) / 1000.0 - 90.0, (k * 104729 % 360000) / 1000.0 - 180.0 }' > "$H/geodesic-cuda/locations.txt"
(cd $H/haversine-cuda && make -s ARCH=sm_90 >/dev/null 2>&1 && timeout 100 ./main ../geodesic-cuda/locations.txt 100) > $OUT/cuda-haversine-cuda.log 2>&1
echo "cuda haversine rc=$? $(grep -i 'average' $OUT/cuda-haversine-cuda.log)"
echo "port haversine $(timeout 60 .device/bin/haversine @synthetic 100 2>&1 | grep -i average)"

#!/usr/bin/env bash
# device-start.sh -- on the GPU machine, from the checkout's root with .device/ carried (bin/ holding the release
# ports and omp-offload-suite of this commit, debs/): the offload suite, then nbody's own clock with the devices
# started before `main` (the default) and at the first region (OMP_RS_DEVICE_START=first-region), three runs each.
#   OUT=/some/dir bash scripts/device/device-start.sh      # suite.log and nbody-start.txt go into $OUT
set -u
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
( timeout 300 .device/bin/omp-offload-suite ) > "${OUT:-.}/suite.log" 2>&1
echo "suite rc=$? $(tail -1 "${OUT:-.}/suite.log")"
for start in early first-region; do
  for _ in 1 2 3; do
    line=$(OMP_RS_DEVICE_START=$start .device/bin/nbody 16000 10 2>&1 | grep -iE "Total time|PASS|FAIL" | tr '\n' ' ')
    echo "$start: $line"
  done
done | tee "${OUT:-.}/nbody-start.txt"

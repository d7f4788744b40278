#!/usr/bin/env bash
# host-profile.sh -- on the GPU machine, from the checkout's root with .device/ carried (bin.tar.xz of the release
# ports, debs/): every port at its header's `device-args` under OMP_RS_PROFILE=1, which prints each target region's
# host time per launch by phase at exit (omp-rs/src/offload/profile.rs); laplace at 512 under the launch modes.
#   OUT=/some/dir bash scripts/device/host-profile.sh      # profile-<port>.txt go into $OUT
set -u
tar xJf .device/bin.tar.xz -C .device
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY OMP_RS_PROFILE=1
for src in ports/src/bin/*.rs; do
  name=$(basename "$src" .rs)
  [ "$name" = laplace ] && continue  # below, at 512
  read -r -a args <<< "$(grep -m1 '^//! device-args:' "$src" | sed 's|^//! device-args:||')"
  limit=$(grep -m1 '^//! device-timeout:' "$src" | sed 's|^//! device-timeout:||' | tr -d ' ')
  ( timeout $(( ${limit:-30} * 3 )) .device/bin/"$name" "${args[@]}" ) > "$OUT/profile-$name.txt" 2>&1
  echo "== $name ${args[*]} rc=$?"
  grep -E '^(PASS|FAIL)$|kernel time:|Total time' "$OUT/profile-$name.txt" | tail -3
  sed -n '/^omp-rs profile/,$p' "$OUT/profile-$name.txt" | head -30
done
# laplace's host verification at 1024 outlasts any timeout (the report is printed at exit): 512 here.
for v in "" "OMP_RS_LAUNCH=queued" "OMP_RS_LAUNCH=sync"; do
  echo "== laplace 512 [$v]"
  env $v timeout 100 .device/bin/laplace 512 > /tmp/laplace.txt 2>&1
  grep 'Total time' /tmp/laplace.txt; sed -n '/^omp-rs profile/,$p' /tmp/laplace.txt
done

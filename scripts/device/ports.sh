#!/usr/bin/env bash
# ports.sh -- the real-code panel on the GPU machine, from the checkout's root with .device/ carried (bin/ holding
# the release ports of this commit, debs/). Each port (ports/src/bin/*.rs) runs at its header's `device-args` under
# OMP_TARGET_OFFLOAD=MANDATORY; its log holds the original's output lines, PASS/FAIL and `kernel time:`.
# The CUDA versions of the programs are not part of this repository: they are built and run from a copy of HeCBench
# by a recipe kept outside git, with `CUDA=1` when it is at .device/panel-cuda.sh (instead of the ports).
#   OUT=/some/dir bash scripts/device/ports.sh      # everything goes into $OUT/ports.tgz
set -u
O=/tmp/ports; rm -rf "$O"; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  if [ "${CUDA:-0}" = 1 ]; then
    bash .device/panel-cuda.sh "$O"
  else
    for src in ports/src/bin/*.rs; do
      name=$(basename "$src" .rs)
      read -r -a args <<< "$(grep -m1 '^//! device-args:' "$src" | sed 's|^//! device-args:||')"
      ( timeout "${PORT_TIMEOUT:-100}" .device/bin/"$name" "${args[@]}" ) > "$O/port-$name.log" 2>&1
      echo "port $name ${args[*]} rc=$? $(grep -E '^(PASS|FAIL)$' "$O/port-$name.log" | tail -1) $(grep '^kernel time:' "$O/port-$name.log" | tail -1)"
    done
  fi
} > "$O/panel.log" 2>&1
tar czf "${OUT:-.}/ports.tgz" -C "$O" .
cat "$O/panel.log"

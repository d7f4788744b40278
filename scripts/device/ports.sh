#!/usr/bin/env bash
# ports.sh -- the real-code panel on the GPU machine, from the checkout's root with .device/ carried (bin/ holding
# the release ports of this commit, debs/). Each port (ports/src/bin/*.rs) runs at its header's `device-args` under
# OMP_TARGET_OFFLOAD=MANDATORY; its log holds the original's output lines, PASS/FAIL and `kernel time:`.
# With `CUDA=1` it builds and runs the programs' CUDA versions instead (scripts/device/panel-cuda.sh: HeCBench's
# sources are not part of this repository, see that script). A port whose header has `//! device-timeout: S` gets S
# seconds (its host verification may be slow), the others PORT_TIMEOUT (100).
#   OUT=/some/dir bash scripts/device/ports.sh      # everything goes into $OUT/ports.tgz
# Each program's result line also goes into $OUT/panel-progress.log as soon as it ran, so that a call cut short by its
# time limit still brings back what finished.
set -u
O=/tmp/ports; rm -rf "$O"; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  if [ "${CUDA:-0}" = 1 ]; then
    bash scripts/device/panel-cuda.sh "$O"
  else
    for src in ports/src/bin/*.rs; do
      name=$(basename "$src" .rs)
      read -r -a args <<< "$(grep -m1 '^//! device-args:' "$src" | sed 's|^//! device-args:||')"
      limit=$(grep -m1 '^//! device-timeout:' "$src" | sed 's|^//! device-timeout:||' | tr -d ' ')
      ( timeout "${limit:-${PORT_TIMEOUT:-100}}" .device/bin/"$name" "${args[@]}" ) > "$O/port-$name.log" 2>&1
      echo "port $name ${args[*]} rc=$? $(grep -E '^(PASS|FAIL)$' "$O/port-$name.log" | tail -1) $(grep -E '^(kernel time:|Total time)' "$O/port-$name.log" | tail -1)" |
        tee -a "${OUT:-.}/panel-progress.log"
    done
  fi
} > "$O/panel.log" 2>&1
tar czf "${OUT:-.}/ports.tgz" -C "$O" .
cat "$O/panel.log"

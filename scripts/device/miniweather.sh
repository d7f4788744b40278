#!/usr/bin/env bash
# miniweather.sh -- on the GPU machine, from the checkout's root with .device/ carried (bin.tar.xz or bin/ holding
# the release `miniweather` port of this commit, debs/): issue #27's miniWeather time loop on the GPU against the
# host's cores, one run each, the port's own timer (`kernel time:`, the original's `CPU Time` around its time loop).
#   OUT=/some/dir bash scripts/device/miniweather.sh      # miniweather.md goes into $OUT
# Sizes: 100x50 (the original's test, 400 s of model time: launch-bound) and 2000x1000 (100 s). The GPU runs
# under OMP_TARGET_OFFLOAD=MANDATORY, the CPU under DISABLED with every core (nproc threads).
set -u
[ -f .device/pack/bin.tar.xz ] && tar xJf .device/pack/bin.tar.xz -C .device
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
B=.device/bin/miniweather
[ -x $B ] || { echo "miniweather.sh: no $B" >&2; exit 2; }
run() { # mode args...: one line, "| size | mode | kernel time | d_mass | d_te | verdict |"
  local mode=$1; shift
  local log
  log=$(OMP_TARGET_OFFLOAD=$mode timeout 300 $B "$@" 2>&1 | grep -v -e '^Elapsed Time' -e '^\*\*\* OUTPUT')
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1x$2, $3 s" "$mode" \
    "$(grep -m1 '^kernel time:' <<< "$log" | sed 's/kernel time: //')" \
    "$(grep -m1 '^d_mass' <<< "$log" | awk '{print $2}')" "$(grep -m1 '^d_te' <<< "$log" | awk '{print $2}')" \
    "$(grep -E '^(PASS|FAIL)$' <<< "$log" | tail -1)"
}
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "host threads: $(nproc)"; echo
  echo '| size | OMP_TARGET_OFFLOAD | kernel time | d_mass | d_te | verdict |'
  echo '|---|---|---:|---:|---:|---|'
  for mode in MANDATORY DISABLED; do
    run $mode 100 50 400 400 DATA_SPEC_THERMAL
    run $mode 2000 1000 100 -1 DATA_SPEC_THERMAL
  done
} > "${OUT:-.}/miniweather.md" 2>&1
cat "${OUT:-.}/miniweather.md"

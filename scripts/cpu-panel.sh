#!/usr/bin/env bash
# cpu-panel.sh OUTDIR -- the ports panel on the host's cores: each port (ports/src/bin/*.rs with a `//! cpu-args:`
# line) under OMP_TARGET_OFFLOAD=DISABLED against its HeCBench OpenMP original built by g++ (`-O3 -fopenmp
# -foffload=disable`: the original's `target` constructs run on the host, as a g++ user's program does without a GPU),
# both at the same arguments on every core, one run each; then the table (`scripts/panel-table.py --gcc`).
# HeCBench is not part of this repository: copy the programs' `src/<name>-omp` folders of a HeCBench checkout (the
# ports name their commit) into .device/hecbench/src/ beside the `<name>-cuda` folders, whose headers some of them
# include (see scripts/device/panel-cuda.sh). The ports come from `cargo build --release -p omp-ports`.
#   bash scripts/cpu-panel.sh /some/dir      # logs, table.md and the g++ build logs go into /some/dir
set -u
O=${1:?usage: cpu-panel.sh OUTDIR}; mkdir -p "$O"; O=$(cd "$O" && pwd)  # absolute: the originals run in their folders
H=$PWD/.device/hecbench/src
[ -d "$H" ] || { echo "cpu-panel.sh: no $H (see the header)" >&2; exit 2; }
# haversine's input: the synthetic points its port generates for `@synthetic` (the port's header has the formula).
awk 'BEGIN { for (k = 0; k < 2097152; k++) printf "%.3f %.3f\n", (k * 7919 % 180000) / 1000.0 - 90.0, (k * 104729 % 360000) / 1000.0 - 180.0 }' > "$O/locations.txt"
{ date -u; nproc; g++ --version | head -1; grep -m1 "model name" /proc/cpuinfo; git rev-parse --short HEAD; } > "$O/machine.txt"
for src in ports/src/bin/*.rs; do
  name=$(basename "$src" .rs)
  line=$(grep -m1 '^//! cpu-args:' "$src" | sed 's|^//! cpu-args:||')
  [ -n "$line" ] || { echo "port $name: no cpu-args, left out" | tee -a "$O/progress.log"; continue; }
  read -r -a args <<< "$line"
  # The original's folder: the port's header names it (`src/<folder>-omp/`).
  folder=$(grep -m1 -o 'src/[A-Za-z0-9-]*-omp/' "$src" | sed 's|src/||; s|-omp/||')
  d="$H/$folder-omp"
  [ -d "$d" ] || { echo "port $name: no $d, left out" | tee -a "$O/progress.log"; continue; }
  # The originals' Makefiles are written for icpx; their headers from `../<folder>-cuda` (one lacks `#include <tuple>`).
  f="-std=c++17 -O3 -fopenmp -foffload=disable -include tuple -I../$folder-cuda"
  (cd "$d" && rm -f main ./*.o && make CC=g++ CXX=g++ CFLAGS="$f" CXXFLAGS="$f" LDFLAGS="-fopenmp -foffload=disable") > "$O/build-$folder.log" 2>&1 ||
    { echo "port $name: g++ build failed ($O/build-$folder.log)" | tee -a "$O/progress.log"; continue; }
  orig_args=("${args[@]/#@synthetic/$O/locations.txt}")
  (cd "$d" && timeout 300 ./main "${orig_args[@]}") > "$O/gcc-$folder-omp.log" 2>&1
  grc=$?
  OMP_TARGET_OFFLOAD=DISABLED timeout 300 target/release/"$name" "${args[@]}" > "$O/port-$name.log" 2>&1
  prc=$?
  echo "port $name ${args[*]}: g++ rc=$grc $(grep -E '^(PASS|FAIL)' "$O/gcc-$folder-omp.log" | tail -1), port rc=$prc $(grep -E '^(PASS|FAIL)$' "$O/port-$name.log" | tail -1)" | tee -a "$O/progress.log"
done
python3 scripts/panel-table.py "$O" "$O" --gcc | tee "$O/table.md"
rm -f "$O/locations.txt"

#!/usr/bin/env bash
# Installs the omp-rs device toolchain (Debian 12, run as root, needs network):
#   apt:   rustc-web rust-web-src llvm-22 lld-22 (kernel compiler + LLVM tools)
#          liboffload-22 libllvm22 libomp5-19      (libomptarget runtime)
#   pip:   ptxas (nvidia-cuda-nvcc==13.0.88) + libdevice (nvidia-nvvm==13.0.88) -> $OMP_RS_HOME/cuda
#   apt-get download: rocm-device-libs (ocml/ockl/oclc bitcode)              -> $OMP_RS_HOME/rocm
#   then builds the `core` sysroots and the omp_device library once (cargo run -p omp-rs-build
#   --bin omp-rs-sysroot), so the first user build does not pay ~20 s per target.
# Idempotent: every step checks what is there first. Options:
#   --no-sysroot   skip the last step        --no-apt   skip apt installs (tools already present)
# Environment: OMP_RS_HOME (default ~/.cache/omp-rs), OMP_RS_OFFLOAD_ARCH (sysroots to pre-build,
#   default sm_90,gfx90a,gfx942,host), OMP_RS_SYSROOT_CMD (shell command that pre-builds them, given
#   the arch list as its argument; `cargo omp setup` sets it, default: cargo run in this repository).
# `cargo omp setup` embeds and runs this file: keep it the one copy of these steps.
set -euo pipefail

OMP_RS_HOME=${OMP_RS_HOME:-$HOME/.cache/omp-rs}
export OMP_RS_HOME
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DO_APT=1 DO_SYSROOT=1
for a in "$@"; do
  case $a in
    --no-sysroot) DO_SYSROOT=0 ;;
    --no-apt) DO_APT=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "setup-gpu-toolchain: unknown option $a (try --help)" >&2; exit 2 ;;
  esac
done

CUDA_VER=13.0.88
APT_PKGS=(rustc-web rust-web-src llvm-22 lld-22 liboffload-22 libllvm22 libomp5-19)
T_ALL=$(date +%s.%N)
SUMMARY=()
log() { printf 'setup-gpu-toolchain: %s\n' "$*"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
done_step() { SUMMARY+=("$(printf '%-28s %6ss  %s' "$1" "$(elapsed "$2")" "$3")"); log "$1: $3 ($(elapsed "$2") s)"; }

# --- 1. Debian packages ---------------------------------------------------------------
t=$(date +%s.%N)
if [ "$DO_APT" = 1 ]; then
  missing=()
  for p in "${APT_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    done_step "apt packages" "$t" "installed ${missing[*]}"
  else
    done_step "apt packages" "$t" "all present (${APT_PKGS[*]})"
  fi
else
  done_step "apt packages" "$t" "skipped (--no-apt)"
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# --- 2. ptxas + libdevice from NVIDIA's pip wheels ------------------------------------
t=$(date +%s.%N)
CUDA_DIR=$OMP_RS_HOME/cuda
if [ -x "$CUDA_DIR/bin/ptxas" ] && [ -f "$CUDA_DIR/nvvm/libdevice/libdevice.10.bc" ] \
   && [ "$(cat "$CUDA_DIR/VERSION" 2>/dev/null)" = "$CUDA_VER" ]; then
  done_step "ptxas + libdevice" "$t" "present in $CUDA_DIR ($CUDA_VER)"
else
  PY=$(command -v python3 || true)
  if [ -z "$PY" ] || ! "$PY" -m pip --version >/dev/null 2>&1; then
    log "python3 -m pip not found: apt-get install python3-pip"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-pip >/dev/null
    PY=$(command -v python3)
  fi
  "$PY" -m pip download -q --no-deps --only-binary=:all: -d "$TMP/whl" \
      "nvidia-cuda-nvcc==$CUDA_VER" "nvidia-nvvm==$CUDA_VER"
  mkdir -p "$TMP/cuda"
  for w in "$TMP"/whl/*.whl; do "$PY" -m zipfile -e "$w" "$TMP/cuda"; done
  ptxas=$(find "$TMP/cuda" -path '*/bin/ptxas' -type f | head -n1)
  libdevice=$(find "$TMP/cuda" -name 'libdevice.10.bc' -type f | head -n1)
  [ -n "$ptxas" ] && [ -n "$libdevice" ] || { log "ptxas or libdevice.10.bc not found in the wheels"; exit 1; }
  rm -rf "$CUDA_DIR.new" && mkdir -p "$CUDA_DIR.new/bin" "$CUDA_DIR.new/nvvm/libdevice"
  install -m 0755 "$ptxas" "$CUDA_DIR.new/bin/ptxas"
  install -m 0644 "$libdevice" "$CUDA_DIR.new/nvvm/libdevice/libdevice.10.bc"
  echo "$CUDA_VER" > "$CUDA_DIR.new/VERSION"
  rm -rf "$CUDA_DIR" && mv "$CUDA_DIR.new" "$CUDA_DIR"   # never leave a half-installed dir
  done_step "ptxas + libdevice" "$t" "installed $("$CUDA_DIR/bin/ptxas" --version | tail -n1) into $CUDA_DIR"
fi

# --- 3. ROCm device libraries (bitcode only; no ROCm install) -------------------------
t=$(date +%s.%N)
ROCM_DIR=$OMP_RS_HOME/rocm
ROCM_BC=$ROCM_DIR/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
if [ -f "$ROCM_BC/ocml.bc" ] && [ -f "$ROCM_BC/ockl.bc" ]; then
  done_step "ROCm device libs" "$t" "present in $ROCM_BC"
else
  # apt-get download warns about running unsandboxed as root; its progress lines are noise here
  (cd "$TMP" && apt-get download -qq rocm-device-libs >/dev/null 2>&1) \
    || { apt-get update -qq && (cd "$TMP" && apt-get download -qq rocm-device-libs >/dev/null); }
  rm -rf "$ROCM_DIR.new" && mkdir -p "$ROCM_DIR.new"
  dpkg-deb -x "$TMP"/rocm-device-libs_*.deb "$ROCM_DIR.new"
  rm -rf "$ROCM_DIR" && mv "$ROCM_DIR.new" "$ROCM_DIR"
  done_step "ROCm device libs" "$t" "extracted $(basename "$TMP"/rocm-device-libs_*.deb) into $ROCM_DIR"
fi

# --- 4. core sysroots + omp_device, built once per (rustc, target, cpu) ----------------
t=$(date +%s.%N)
if [ "$DO_SYSROOT" = 1 ]; then
  ARCHS=${OMP_RS_OFFLOAD_ARCH:-sm_90,gfx90a,gfx942,host}
  if [ -n "${OMP_RS_SYSROOT_CMD:-}" ]; then
    # cargo-omp's own builder: works without a checkout of this repository
    nice bash -c "$OMP_RS_SYSROOT_CMD \"\$1\"" omp-rs-sysroot "$ARCHS"
  else
    CARGO=${CARGO:-$(command -v cargo || echo "$HOME/.cargo/bin/cargo")}
    (cd "$REPO" && nice "$CARGO" run -q -p omp-rs-build --bin omp-rs-sysroot -- "$ARCHS")
  fi
  done_step "core sysroots" "$t" "built or found in $OMP_RS_HOME/sysroot"
else
  done_step "core sysroots" "$t" "skipped (--no-sysroot)"
fi

log "summary (OMP_RS_HOME=$OMP_RS_HOME), total $(elapsed "$T_ALL") s:"
for s in "${SUMMARY[@]}"; do printf '  %s\n' "$s"; done

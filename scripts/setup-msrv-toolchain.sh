#!/usr/bin/env bash
# Installs the Rust toolchain of the workspace's `rust-version` (Cargo.toml) for the MSRV check
# (omp-rs/tests/workspace.rs), Debian 12, as root: Debian's rustc-web/cargo-web packages of that version
# (bookworm keeps 1.85 beside the security updates' newer one) are downloaded, not installed, and unpacked into
# $OMP_RS_HOME/msrv-<version> (default ~/.cache/omp-rs), so the system's and rustup's toolchains stay as they are.
# cargo-web's own shared libraries (libpcre3, libhttp-parser2.9) are installed with apt. Idempotent.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VER=$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' "$REPO/Cargo.toml" | head -n 1)
[ -n "$VER" ] || { echo "setup-msrv-toolchain: no rust-version in $REPO/Cargo.toml" >&2; exit 2; }
DEST=${OMP_RS_HOME:-$HOME/.cache/omp-rs}/msrv-$VER
if "$DEST/usr/bin/cargo" --version >/dev/null 2>&1 && "$DEST/usr/bin/rustc" --version | grep -q "^rustc $VER"; then
  echo "setup-msrv-toolchain: $DEST has rustc $VER"; exit 0
fi
export LD_LIBRARY_PATH=$DEST/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpcre3 libhttp-parser2.9 >/dev/null
# The newest Debian build of that Rust version (`1.85.0+dfsg3-1~deb12u3`).
PKGVER=$(apt-cache madison rustc-web | awk -v v="$VER" '$3 ~ "^"v"[.+]" { print $3 }' | sort -V | tail -n 1)
[ -n "$PKGVER" ] || { echo "setup-msrv-toolchain: Debian offers no rustc-web $VER" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
MAJOR=$(echo "$VER" | cut -d. -f1,2)
(cd "$TMP" && apt-get download -qq "rustc-web=$PKGVER" "cargo-web=$PKGVER" "libstd-rust-web-dev=$PKGVER" \
    "libstd-rust-web-$MAJOR=$PKGVER" 2>&1 | grep -v "couldn't be accessed by user '_apt'" || true)
rm -rf "$DEST"; mkdir -p "$DEST"
for deb in "$TMP"/*.deb; do dpkg-deb -x "$deb" "$DEST"; done
"$DEST/usr/bin/rustc" --version && "$DEST/usr/bin/cargo" --version

#!/bin/sh
# fetch-mpi.sh [DIR]
# Run on the dev machine (Debian 12, amd64) inside the checkout. Downloads the Debian packages of Open MPI's
# runtime (the version examples/mpi-heat links against) into DIR (default .device/mpi-debs, about 4 MiB), for
# mpi-env.sh to unpack on the GPU machine, which has no MPI and no network. Nothing is installed here. Only the
# shared-memory transport's dependencies are fetched (one node: btl self,vader); components that need absent
# libraries (UCX, libfabric, verbs, munge) stay unloaded there.
set -eu
DIR=${1:-.device/mpi-debs}
PKGS="openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libnuma1"
command -v apt-get >/dev/null || { echo "fetch-mpi.sh: apt-get not found: run this on the Debian dev machine" >&2; exit 1; }
mkdir -p "$DIR"
if top=$(git rev-parse --show-toplevel 2>/dev/null) && ! git -C "$top" check-ignore -q "$DIR/x.deb"; then
  echo "fetch-mpi.sh: warning: $DIR is not git-ignored (it must travel as an ignored path)" >&2
fi
rm -f "$DIR"/*.deb
# shellcheck disable=SC2086
(cd "$DIR" && apt-get download $PKGS 2>&1 | grep -v "^W: Download is performed unsandboxed") || true
for p in $PKGS; do ls "$DIR/${p}_"*.deb >/dev/null 2>&1 || { echo "fetch-mpi.sh: $p not downloaded" >&2; exit 1; }; done
(cd "$DIR" && sha256sum -- *.deb > SHA256SUMS)
echo "Downloaded into $DIR: $(ls "$DIR"/*.deb | wc -l) packages, $(du -sm "$DIR" | cut -f1) MiB"

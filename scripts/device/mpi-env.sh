# mpi-env.sh -- source it on the GPU machine:   . scripts/device/mpi-env.sh [DEBDIR]   (default .device/mpi-debs)
# Unpacks the Open MPI packages that fetch-mpi.sh downloaded into /tmp/ompi (never into /) and relocates Open MPI
# there (OPAL_PREFIX), so `orterun` and programs linked against libmpi.so.40 run without an installation. Sets the
# one-node transport (ob1 over self,vader), lets root run ranks (the GPU machine runs commands as root) and quiets
# components whose libraries are absent. Returns non-zero with a message on any problem.
if ! (return 0 2>/dev/null); then
  echo "mpi-env.sh: source this file, do not execute it" >&2; exit 2
fi
ompi_setup() {
  local debs=${1:-.device/mpi-debs} root=/tmp/ompi
  [ -d "$debs" ] || { echo "mpi-env.sh: no folder '$debs': run scripts/device/fetch-mpi.sh on the dev machine" >&2; return 1; }
  if [ -f "$debs/SHA256SUMS" ]; then
    (cd "$debs" && sha256sum --quiet -c SHA256SUMS) || { echo "mpi-env.sh: checksum mismatch in $debs" >&2; return 1; }
  fi
  if [ ! -x "$root/usr/bin/orterun" ]; then
    mkdir -p "$root" && for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$root" || return 1; done
  fi
  export OPAL_PREFIX=$root/usr
  export PATH=$root/usr/bin:$PATH
  export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mca_base_component_show_load_errors=0
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # PMIx's compression plugins need a zlib it does not find there; it only warns, once per run.
  export PMIX_MCA_pcompress_base_silence_warning=1
  orterun --version 2>&1 | head -n 1
}
ompi_setup "$@"

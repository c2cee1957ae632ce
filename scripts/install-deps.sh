#!/usr/bin/env bash
# Installs what pscr needs to build and test on Debian/Ubuntu (run as root, or with sudo).
# The CUDA toolkit is not installed here: with nvcc on the PATH the GPU backend is built too.
# Usage: scripts/install-deps.sh (no arguments)
# Exit code: 0 when everything is installed; apt-get's otherwise.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  build-essential cmake git pkg-config clang-format \
  libeigen3-dev liblapacke-dev libopenblas-dev libhdf5-dev hdf5-tools \
  libgtest-dev libgmock-dev libomp-dev \
  python3 python3-h5py python3-numpy python3-matplotlib > /dev/null
echo "install-deps: done"

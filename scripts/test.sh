#!/usr/bin/env bash
# Builds pscr and runs the whole test suite (README command 2; CI runs it too):
# the formatting check, then every CTest test (labels unit, gpu, integration; the gpu tests skip
# themselves where no GPU is present). Exit code: 0 when everything passes.
# Usage: scripts/test.sh (no arguments)
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
"$root/scripts/check-format.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

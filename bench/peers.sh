#!/usr/bin/env bash
# Runs the peers of issue 6 (bench/peers: dense fast diagonalization with cuBLAS, cuFFT Poisson)
# and writes OUTDIR/peers.csv (one row per case; columns in bench/peers/peers_bench.cu) and
# OUTDIR/peers.log. Called by scripts/gpu-check.sh --bench peers; needs a CUDA build.
#
# Usage: bench/peers.sh OUTDIR [peers_bench options: --quick, --reps N, --setup-budget-s S,
#        --solve-limit-s S]
# Environment: PSCR_BUILD_DIR, the build directory (default: build-gpu next to bench/).
# Exit code: peers_bench's (0 when every correctness check passed and the sweeps ran).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -lt 1 ]; then sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
build=${PSCR_BUILD_DIR:-$root/build-gpu}
exe="$build/bench/peers/peers_bench"
# Always (a no-op when up to date): a kept build directory may hold an older binary.
cmake --build "$build" --target peers_bench -j "$(nproc)"
mkdir -p "$out"
"$exe" --csv "$out/peers.csv" "$@" 2>&1 | tee "$out/peers.log"
exit "${PIPESTATUS[0]}"

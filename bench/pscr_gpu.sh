#!/usr/bin/env bash
# Runs the GPU PSCR benchmark of issue 6 (bench/pscr_gpu_bench.cu) and writes
# OUTDIR/pscr-gpu.csv (one row per size; columns in the CSV header, described in the .cu file)
# and OUTDIR/pscr-gpu.log. Called by scripts/gpu-check.sh --bench pscr_gpu; needs a CUDA build.
#
# Usage: bench/pscr_gpu.sh OUTDIR [pscr_gpu_bench options: --quick, --reps N, --max-solve-s S,
#        --only poisson2d|helmholtz2d|poisson3d|helmholtz3d, --sizes N[,N...],
#        --stages fused|separate|both]
# Environment: PSCR_BUILD_DIR, the build directory (default: build-gpu next to bench/).
# Exit code: pscr_gpu_bench's (0 when every residual met its bound).
# Plots are a separate step, run where matplotlib is (the GPU machine may lack it), after the
# CSVs are fetched: bench/plot_results.py --pscr-gpu OUTDIR/pscr-gpu.csv --peers PEERS.csv
# --out OUTDIR (docs/benchmarks.md).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -lt 1 ]; then sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
build=${PSCR_BUILD_DIR:-$root/build-gpu}
exe="$build/bench/pscr_gpu_bench"
# Always (a no-op when up to date): a kept build directory may hold an older binary.
cmake --build "$build" --target pscr_gpu_bench -j "$(nproc)"
mkdir -p "$out"
"$exe" --csv "$out/pscr-gpu.csv" "$@" 2>&1 | tee "$out/pscr-gpu.log"
exit "${PIPESTATUS[0]}"

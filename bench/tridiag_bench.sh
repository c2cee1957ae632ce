#!/usr/bin/env bash
# Runs the GPU tridiagonal benchmark, derives a selection table from it and prints issue 5's
# goals against it (bench/tridiag_goals.py; goals missed do not fail the run).
# Usage: bench/tridiag_bench.sh OUTDIR [extra tridiag_bench arguments]
#   (scripts/gpu-check.sh --bench tridiag_bench calls it with OUTDIR = $OUT)
# Writes OUTDIR/tridiag_bench.csv and OUTDIR/selection_table.inc (the candidate for
# tridiag/cuda/selection_table.inc; copy it there and commit it with the CSV in bench/results/).
# Environment: PSCR_BUILD_DIR (default build-gpu), the build with -DPSCR_ENABLE_CUDA=ON.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tridiag_bench.sh OUTDIR [args]}
shift
build=${PSCR_BUILD_DIR:-$root/build-gpu}
exe="$build/bench/tridiag_bench"
# Always (a no-op when up to date): a kept build directory may hold an older binary.
cmake --build "$build" --target tridiag_bench -j "$(nproc)"
mkdir -p "$out"
"$exe" "$out/tridiag_bench.csv" "$@"
python3 "$root/bench/tridiag_select.py" "$out/tridiag_bench.csv" "$out/selection_table.inc"
# Exit code 3: some goal missed, which is a measurement, not a failure of the run.
python3 "$root/bench/tridiag_goals.py" "$out/tridiag_bench.csv" || [ $? -eq 3 ]

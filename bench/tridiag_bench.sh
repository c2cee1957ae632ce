#!/usr/bin/env bash
# Runs the GPU tridiagonal benchmark TRIDIAG_RUNS times (default 2), and as often its complex
# systems alone as indefinite Helmholtz systems (--scalars complex --systems helmholtz), merges
# each kind of run (each configuration's fastest median: bench/tridiag_merge.py, since a run can
# pass through stretches where the GPU is slower), derives a selection table from the merged CSVs
# (the complex entries that are not dominant from the Helmholtz runs: bench/tridiag_select.py)
# and prints issue 5's goals against the main CSV, with the Helmholtz runs' complex table beside
# them (bench/tridiag_goals.py; goals missed do not fail the run).
# Usage: bench/tridiag_bench.sh OUTDIR [extra tridiag_bench arguments]
#   (scripts/gpu-check.sh --bench tridiag_bench calls it with OUTDIR = $OUT)
# Writes OUTDIR/tridiag_bench-run1.csv, ... and tridiag_bench-helmholtz-run1.csv, ... (each
# run), OUTDIR/tridiag_bench.csv and tridiag_bench-helmholtz.csv (merged; the single run where
# TRIDIAG_RUNS=1) and OUTDIR/selection_table.inc (the candidate for the table of the GPU it ran
# on, tridiag/cuda/selection_table_h100.inc or _h200.inc, tridiag/cuda/selection.hpp:
# selection_gpu; copy it there and commit it with the merged CSVs in bench/results/). Each full
# run takes about 2.5 minutes on an H100, a Helmholtz run about one.
# Environment: PSCR_BUILD_DIR (default build-gpu), the build with -DPSCR_ENABLE_CUDA=ON;
# TRIDIAG_RUNS, the runs to merge (a positive integer); TRIDIAG_HELMHOLTZ=0 skips the Helmholtz
# runs (needed with --scalars real among the extra arguments).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tridiag_bench.sh OUTDIR [args]}
shift
runs=${TRIDIAG_RUNS:-2}
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "tridiag_bench.sh: TRIDIAG_RUNS must be a positive integer, got '$runs'" >&2
  exit 2
fi
build=${PSCR_BUILD_DIR:-$root/build-gpu}
exe="$build/bench/tridiag_bench"
# Always (a no-op when up to date): a kept build directory may hold an older binary.
cmake --build "$build" --target tridiag_bench -j "$(nproc)"
mkdir -p "$out"
# bench NAME [tridiag_bench arguments]: TRIDIAG_RUNS runs into OUTDIR/NAME-runI.csv, merged into
# OUTDIR/NAME.csv.
bench() {
  local name=$1 csvs=() i
  shift
  for i in $(seq "$runs"); do
    echo "tridiag_bench.sh: $name, run $i of $runs"
    "$exe" "$out/$name-run$i.csv" "$@"
    csvs+=("$out/$name-run$i.csv")
  done
  if [ "$runs" -eq 1 ]; then
    cp "${csvs[0]}" "$out/$name.csv"
  else
    python3 "$root/bench/tridiag_merge.py" --force "$out/$name.csv" "${csvs[@]}"
  fi
}
bench tridiag_bench "$@"
select_args=()
if [ "${TRIDIAG_HELMHOLTZ:-1}" != 0 ]; then
  bench tridiag_bench-helmholtz --scalars complex --systems helmholtz "$@"
  select_args=(--helmholtz "$out/tridiag_bench-helmholtz.csv")
fi
python3 "$root/bench/tridiag_select.py" "$out/tridiag_bench.csv" "$out/selection_table.inc" \
  "${select_args[@]}"
# Exit code 3: some goal missed, which is a measurement, not a failure of the run.
python3 "$root/bench/tridiag_goals.py" "$out/tridiag_bench.csv" "${select_args[@]}" || [ $? -eq 3 ]

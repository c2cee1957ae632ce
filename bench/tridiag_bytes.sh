#!/usr/bin/env bash
# DRAM bytes per row and kernel time of issue 5's goal cells, read by Nsight Compute on the GPU
# machine: for each cell, the configuration its best fraction of the copy comes from in a
# tridiag_bench CSV (bench/tridiag_bytes.py configs), run by tridiag_bench under ncu, then one
# Markdown table of all cells (bench/tridiag_bytes.py summarize): the bytes each solve moves
# against the floor, and the rate its kernels move them at against the copy's.
#
# Usage: bench/tridiag_bytes.sh PACK CSV OUTDIR [CELL_FILTER]
#   PACK         a bench/pack.sh directory holding tridiag_bench (run with LD_LIBRARY_PATH=PACK)
#   CSV          the tridiag_bench CSV of the same device whose best configurations are profiled
#                (bench/results/tridiag-h200.csv)
#   OUTDIR       created if missing; gets ncu-SCALAR-LAYOUT-N-BATCH.csv per cell, the bench's own
#                CSVs (timed under the profiler: not for speed), bytes.md (the table),
#                bytes.csv (its rows as CSV, the device named) and launches.csv (every launch)
#   CELL_FILTER  an extended regular expression on a cell's line of `tridiag_bytes.py configs`
#                (`scalar layout n batch method K`); default: every cell
# ncu profiles at most 60 launches per cell (every solve's kernels, a dozen solves or more),
# with the clocks and caches left alone (--clock-control none --cache-control none), so that each
# solve finds the L2 as the solve before it left it, as in the benchmark's repetitions.
# Exit code: 0 every cell profiled and summarized; 1 a cell failed (the others still run) or the
# summary failed; 2 bad arguments.
set -uo pipefail
if [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; }; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: bench/tridiag_bytes.sh PACK CSV OUTDIR [CELL_FILTER] (see --help)" >&2
  exit 2
fi
pack=$1 csv=$2 out=$3 filter=${4:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$pack/tridiag_bench" ] || { echo "tridiag_bytes: no executable $pack/tridiag_bench" >&2; exit 2; }
[ -f "$csv" ] || { echo "tridiag_bytes: no CSV '$csv'" >&2; exit 2; }
command -v ncu > /dev/null || { echo "tridiag_bytes: ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
mkdir -p "$out" || exit 2
configs=$(python3 "$root/bench/tridiag_bytes.py" configs "$csv") || exit 1
status=0
profiles=()
while read -r scalar layout n batch method k; do
  [ -n "$scalar" ] || continue
  echo "$scalar $layout $n $batch $method $k" | grep -Eq -- "$filter" || continue
  tag="$scalar-$layout-$n-$batch"
  rows=()
  [ "$k" -gt 0 ] && rows=(--rows "$k")
  echo "tridiag_bytes: $tag ($method${k:+ K = $k})"
  log="$out/ncu-$tag.log"
  if LD_LIBRARY_PATH="$pack" ncu --clock-control none --cache-control none -c 60 \
      --kernel-name-base demangled -k 'regex:pscr::tridiag' \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      --csv --print-units base --log-file "$log" \
      "$pack/tridiag_bench" "$out/bench-$tag.csv" --reps 10 --shapes "$n:$batch" \
      --methods "$method" "${rows[@]}" --layouts "$layout" --scalars "$scalar" \
      --forms shifted > "$out/bench-$tag.out" 2>&1; then
    { echo "# $scalar $layout $n $batch $method $k"; cat "$log"; } > "$out/ncu-$tag.csv"
    rm -f "$log"
    profiles+=("$out/ncu-$tag.csv")
  else
    echo "tridiag_bytes: $tag failed (see $log and $out/bench-$tag.out)" >&2
    status=1
  fi
done <<< "$configs"
if [ ${#profiles[@]} -gt 0 ]; then
  python3 "$root/bench/tridiag_bytes.py" summarize "$csv" "${profiles[@]}" \
    --csv "$out/bytes.csv" --launches "$out/launches.csv" > "$out/bytes.md" || status=1
  cat "$out/bytes.md"
fi
exit $status

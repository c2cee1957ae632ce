#!/usr/bin/env bash
# A/B run of one GPU benchmark: the same benchmark built from two source trees, BASE (another
# revision, exported beside the checkout) and this working tree, run alternately on the same
# device, so that a change's effect is measured in one run against its own baseline
# (docs/benchmarks.md).
#
# Usage: bench/ab.sh BASE_DIR OUTDIR TARGET ROUNDS [BENCH_ARGS...]
#   BASE_DIR  a source tree of the baseline, e.g. made here with
#             `mkdir -p .ab/base && git archive REV | tar -x -C .ab/base` (.ab/ is ignored;
#             name it in the device call's carry)
#   TARGET    pscr_gpu_bench or tridiag_bench
#   ROUNDS    base, new, base, new, ... ROUNDS times each
#   BENCH_ARGS  passed to both (e.g. --only poisson2d --sizes 4096,8192 --stages fused, or
#             --shapes 64:262144,1048576:16)
# Writes OUTDIR/ab-TARGET.csv: the benchmark's CSV rows with two leading columns, variant
# (base or new) and round, and OUTDIR/ab-TARGET.log (the benchmarks' output).
# Environment: PSCR_BUILD_DIR (default build-gpu: the working tree's build, configured by
# scripts/gpu-check.sh or here), CMAKE_CUDA_ARCHITECTURES (default 90).
# Exit code: 0 when both builds and every run succeeded, 1 otherwise, 2 for bad arguments.
set -uo pipefail
if [ $# -lt 4 ] || [ "$1" = --help ] || [ "$1" = -h ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; } && exit 0
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
base_src=$(cd "$1" 2>/dev/null && pwd) || { echo "ab: no base tree '$1'" >&2; exit 2; }
out=$2
target=$3
rounds=$4
shift 4
case "$target" in
  pscr_gpu_bench | tridiag_bench) ;;
  *) echo "ab: TARGET must be pscr_gpu_bench or tridiag_bench, found '$target'" >&2; exit 2 ;;
esac
case "$rounds" in
  '' | *[!0-9]* | 0) echo "ab: ROUNDS must be a positive integer, found '$rounds'" >&2; exit 2 ;;
esac
[ -f "$base_src/CMakeLists.txt" ] || { echo "ab: $base_src holds no CMakeLists.txt" >&2; exit 2; }
mkdir -p "$out"
log="$out/ab-$target.log"
csv="$out/ab-$target.csv"
: > "$log"
rm -f "$csv"

build() {  # SOURCE BUILD_DIR: configured only where not yet (a gpu-check.sh build is kept as it is)
  { [ -f "$2/CMakeCache.txt" ] ||
      cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" -DPSCR_BUILD_TESTS=OFF \
        >> "$log" 2>&1; } && cmake --build "$2" --target "$target" -j "$(nproc)" >> "$log" 2>&1
}
new_build=${PSCR_BUILD_DIR:-$root/build-gpu}
base_build=$base_src/build-gpu
for side in base new; do
  if [ $side = base ]; then src=$base_src dir=$base_build; else src=$root dir=$new_build; fi
  echo "== build $side ($src)" | tee -a "$log"
  if ! build "$src" "$dir"; then
    echo "ab: the $side build failed; the end of the log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
done

status=0
for ((r = 1; r <= rounds; r++)); do
  for side in base new; do
    if [ $side = base ]; then dir=$base_build; else dir=$new_build; fi
    tmp="$out/.ab-run.csv"
    rm -f "$tmp"
    echo "== $side, round $r" | tee -a "$log"
    if [ "$target" = pscr_gpu_bench ]; then
      "$dir/bench/pscr_gpu_bench" --csv "$tmp" "$@" >> "$log" 2>&1
    else
      "$dir/bench/tridiag_bench" "$tmp" "$@" >> "$log" 2>&1
    fi
    rc=$?
    # pscr_gpu_bench exits 1 for a residual above its bound: its rows still count.
    if [ ! -s "$tmp" ] || { [ $rc -ne 0 ] && [ "$target" != pscr_gpu_bench ]; }; then
      echo "ab: $side round $r failed (exit $rc)" | tee -a "$log"
      status=1
      continue
    fi
    [ -f "$csv" ] || sed -n '1s/^/variant,round,/p' "$tmp" > "$csv"
    sed -n "2,\$s/^/$side,$r,/p" "$tmp" >> "$csv"
  done
done
rm -f "$out/.ab-run.csv"
echo "== done: status $status" | tee -a "$log"
exit $status

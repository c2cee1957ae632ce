#!/usr/bin/env bash
# A/B run of one GPU benchmark: the same benchmark built from several source trees, one or more
# baselines (other revisions or variants, exported beside the checkout) and this working tree,
# run alternately on the same device, so that a change's effect is measured in one run against
# its own baseline (docs/benchmarks.md).
#
# Usage: bench/ab.sh BASE_DIR[,BASE_DIR...] OUTDIR TARGET ROUNDS [BENCH_ARGS...]
#   BASE_DIR  a source tree of a baseline, e.g. made here with
#             `mkdir -p .ab/base && git archive REV | tar -x -C .ab/base` (.ab/ is ignored;
#             name it in the device call's carry), or a directory of binaries built elsewhere
#             (bench/pack.sh: TARGET and libpscr.so.0), run as they are; several, separated by
#             commas, are variants measured in the same run, each named after its directory
#   TARGET    pscr_gpu_bench or tridiag_bench
#   ROUNDS    every baseline, then the working tree, ROUNDS times
#   BENCH_ARGS  passed to all (e.g. --only poisson2d --sizes 4096,8192 --stages fused, or
#             --shapes 64:262144,1048576:16)
# All trees are built at once (their builds are independent: a third of a device call's time
# when built one after another). Writes OUTDIR/ab-TARGET.csv: the benchmark's CSV rows with two
# leading columns, variant (base, or the baselines' directory names; new for the working tree)
# and round (bench/ab_compare.py prints it side by side), and OUTDIR/ab-TARGET.log (all output).
# Environment: PSCR_BUILD_DIR (default build-gpu: the working tree's build, configured by
# scripts/gpu-check.sh or here), PSCR_AB_NEW (a bench/pack.sh directory that stands for the
# working tree, which is then not built), CMAKE_CUDA_ARCHITECTURES (default 90).
# Exit code: 0 when every build and every run succeeded, 1 otherwise (also: packed binaries that
# need libraries this machine lacks), 2 for bad arguments.
set -uo pipefail
if [ $# -lt 4 ] || [ "$1" = --help ] || [ "$1" = -h ]; then
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; } && exit 0
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
base_list=$1
case "$base_list" in
  '' | ,* | *, | *,,*) echo "ab: an empty base tree in '$base_list'" >&2; exit 2 ;;
esac
IFS=, read -r -a base_args <<< "$base_list"
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
# A directory of binaries from bench/pack.sh: PACKED, TARGET and libpscr.so.0, nothing to build.
packed() { [ -f "$1/PACKED" ]; }
check_packed() {  # DIR WHAT
  [ -x "$1/$target" ] || { echo "ab: $2 '$1' holds no executable $target (bench/pack.sh)" >&2; exit 2; }
}
# Variants: name, source tree (or packed binaries), build directory (empty where packed); the
# baselines first, the working tree last.
names=() srcs=() builds=()
for arg in "${base_args[@]}"; do
  src=$(cd "$arg" 2>/dev/null && pwd) || { echo "ab: no base tree '$arg'" >&2; exit 2; }
  [ "$src" != "$root" ] || { echo "ab: the base tree '$arg' is the working tree" >&2; exit 2; }
  if packed "$src"; then
    check_packed "$src" "the packed baseline"
  else
    [ -f "$src/CMakeLists.txt" ] || { echo "ab: $src holds no CMakeLists.txt" >&2; exit 2; }
  fi
  if [ ${#base_args[@]} -eq 1 ]; then name=base; else name=$(basename "$src"); fi
  for other in "${names[@]}" new; do
    [ "$name" != "$other" ] || {
      echo "ab: two trees would both be named '$name' (baselines are named after their" \
        "directories, which must differ from each other and from 'new')" >&2
      exit 2
    }
  done
  if packed "$src"; then build_dir=""; else build_dir="$src/build-gpu"; fi
  names+=("$name") srcs+=("$src") builds+=("$build_dir")
done
if [ -n "${PSCR_AB_NEW:-}" ]; then
  new=$(cd "$PSCR_AB_NEW" 2>/dev/null && pwd) && packed "$new" || {
    echo "ab: PSCR_AB_NEW='$PSCR_AB_NEW' is not a directory made by bench/pack.sh" >&2
    exit 2
  }
  check_packed "$new" "PSCR_AB_NEW"
  names+=(new) srcs+=("$new") builds+=("")
else
  names+=(new) srcs+=("$root") builds+=("${PSCR_BUILD_DIR:-$root/build-gpu}")
fi
mkdir -p "$out"
log="$out/ab-$target.log"
csv="$out/ab-$target.csv"
: > "$log"
rm -f "$csv"

build() {  # SOURCE BUILD_DIR LOG: configured only where not yet (a gpu-check.sh build is kept)
  { [ -f "$2/CMakeCache.txt" ] ||
      cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" -DPSCR_BUILD_TESTS=OFF \
        > "$3" 2>&1; } && cmake --build "$2" --target "$target" -j "$(nproc)" >> "$3" 2>&1
}
pids=()
for i in "${!names[@]}"; do
  if [ -z "${builds[$i]}" ]; then
    echo "== packed ${names[$i]} (${srcs[$i]}: $(head -n 1 "${srcs[$i]}/PACKED"))" | tee -a "$log"
    # The packed binaries' shared libraries must all resolve on this machine.
    missing=$(LD_LIBRARY_PATH="${srcs[$i]}" ldd "${srcs[$i]}/$target" 2>&1 | grep "not found")
    if [ -n "$missing" ]; then
      echo "ab: the packed ${names[$i]} binaries need libraries this machine lacks:" >&2
      echo "$missing" >&2
      exit 1
    fi
    pids+=("")
    continue
  fi
  echo "== build ${names[$i]} (${srcs[$i]})" | tee -a "$log"
  build "${srcs[$i]}" "${builds[$i]}" "$out/.ab-build-$i.log" &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  [ -n "${pids[$i]}" ] || continue
  if ! wait "${pids[$i]}"; then
    echo "ab: the ${names[$i]} build failed; the end of its log:" >&2
    tail -n 40 "$out/.ab-build-$i.log" >&2
    failed=1
  fi
  cat "$out/.ab-build-$i.log" >> "$log"
  rm -f "$out/.ab-build-$i.log"
done
[ $failed -eq 0 ] || exit 1

status=0
for ((r = 1; r <= rounds; r++)); do
  for i in "${!names[@]}"; do
    side=${names[$i]}
    if [ -n "${builds[$i]}" ]; then
      exe="${builds[$i]}/bench/$target" libs=""
    else
      exe="${srcs[$i]}/$target" libs="${srcs[$i]}"
    fi
    tmp="$out/.ab-run.csv"
    rm -f "$tmp"
    echo "== $side, round $r" | tee -a "$log"
    if [ "$target" = pscr_gpu_bench ]; then
      LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$exe" --csv "$tmp" "$@" >> "$log" 2>&1
    else
      LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$exe" "$tmp" "$@" >> "$log" 2>&1
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

#!/usr/bin/env bash
# The one command given to the GPU machine (the `device` tool): configure and build pscr with
# CUDA (all cores), run the tests, optionally the GPU benchmarks, and leave logs and results
# under $OUT (./gpu-out when OUT is unset).
#
# Usage: scripts/gpu-check.sh [--tests gpu|all|none] [--bench NAME[,NAME...]] [--help]
#   --tests   which CTest labels to run (default gpu: only the GPU tests; all: the whole suite;
#             none: no tests, and only the library and the benchmarks' own targets are built)
#   --bench   benchmarks to run after the tests, by name of their script in bench/ (bench/NAME.sh),
#             each writing its CSV/JSON into $OUT
# Exit code: 0 when the build and every requested test pass, 1 otherwise.
set -uo pipefail

tests=gpu
benches=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) tests="$2"; shift 2 ;;
    --bench) benches="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
build=${PSCR_GPU_BUILD_DIR:-$root/build-gpu}
mkdir -p "$out"
log="$out/gpu-check.log"
: > "$log"
status=0
step() { echo "== $*" | tee -a "$log"; }

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee -a "$log"

# With --tests none only the library is built here; each benchmark script builds its own target
# (a full build is most of a bench-only run's device time).
# The tests are switched on explicitly: a build directory kept on the machine may have been
# configured without them (bench/ab.sh does), and ctest would then find none.
if [ "$tests" = none ]; then targets=(--target pscr); else targets=(); fi
step "configure and build"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON \
         -DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES:-90} \
         "-DPSCR_BUILD_TESTS=$([ "$tests" = none ] && echo OFF || echo ON)" &&
       cmake --build "$build" -j "$(nproc)" "${targets[@]}"; } >> "$log" 2>&1; then
  echo "build failed; the end of the log:" | tee -a "$log"
  tail -n 60 "$log"
  exit 1
fi

# ctest's own exit code (not tee's) decides the status.
run_tests() {
  step "$1 tests"
  shift
  ctest --test-dir "$build" --output-on-failure --no-tests=error "$@" 2>&1 |
    tee "$out/tests.log" | tail -n 40
  return "${PIPESTATUS[0]}"
}
case "$tests" in
  gpu) run_tests gpu -L gpu -j 4 || status=1 ;;
  all) run_tests all -j 8 || status=1 ;;
  none) ;;
  *) echo "gpu-check: --tests must be gpu, all or none, found '$tests'" >&2; exit 2 ;;
esac

# The command end to end on the GPU: the shipped example through --backend gpu.
if [ "$tests" != none ]; then
  step "pscr solve --backend gpu (shipped example)"
  "$root/scripts/check-example-gpu.sh" "$build/apps/pscr" "$out/example-solution.h5" 2>&1 |
    tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # Initialize once, solve many times: the first solve writes the eigen-data, the second reads
  # them (and must give a solution of the same residual).
  step "pscr solve --backend gpu --eigen-data (written, then read)"
  eigen="$out/example-eigen.h5"
  rm -f "$eigen"
  for pass in write read; do
    "$root/scripts/check-example-gpu.sh" "$build/apps/pscr" "$out/example-solution.h5" \
      --eigen-data "$eigen" 2>&1 | sed "s/^/[$pass] /" | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  rm -f "$eigen"
fi

for name in ${benches//,/ }; do
  step "bench $name"
  if [ ! -x "$root/bench/$name.sh" ]; then echo "no benchmark script bench/$name.sh" | tee -a "$log"; status=1; continue; fi
  PSCR_BUILD_DIR="$build" "$root/bench/$name.sh" "$out" 2>&1 | tee -a "$log" | tail -n 40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
step "done: status $status"
exit $status

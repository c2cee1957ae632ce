#!/usr/bin/env bash
# Builds the CPU code with AddressSanitizer and UndefinedBehaviorSanitizer (no CUDA, no
# benchmarks) and runs every CTest test under them, leaks included: a memory error, a leak or
# undefined behaviour fails the test that ran into it. CI runs it after scripts/test.sh.
# Two tests do not run as they do there: install_consumer (its consumer, built without the
# sanitizers, cannot load the sanitized library) and the CLI's out-of-memory case (skipped through
# PSCR_SANITIZED: it limits the address space below what AddressSanitizer reserves).
# Usage: scripts/sanitize.sh (no arguments)
# Environment: BUILD_DIR (default build-sanitize), JOBS (default: number of cores).
# Exit code: 0 when every test passes.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -gt 0 ]; then
  echo "sanitize.sh: expected no arguments, found '$1' (see --help)" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-sanitize}
jobs=${JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSCR_ENABLE_CUDA=OFF \
  -DPSCR_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$flags"
cmake --build "$build" -j "$jobs"
export PSCR_SANITIZED=1
export ASAN_OPTIONS=detect_leaks=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir "$build" --output-on-failure -j "$jobs" -E '^install_consumer$'

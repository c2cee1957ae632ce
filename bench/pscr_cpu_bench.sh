#!/usr/bin/env bash
# Runs the CPU PSCR benchmark (pscr_cpu_bench) case by case and appends the rows to
# bench/results/pscr-cpu.csv, naming the machine. Before each case it waits until the machine is
# quiet: less than MAX_BUSY percent of all cores busy over 3 seconds (the timings of a shared
# machine mean nothing otherwise); it gives up waiting after WAIT_S seconds (the row records the
# 1-minute load average it ran under either way).
#
# Usage: bench/pscr_cpu_bench.sh [CASES] [THREADS] [REFINE]
#   CASES    comma-separated case names or groups of pscr_cpu_bench (default: paper)
#   THREADS  comma-separated thread counts (default: 1,2)
#   REFINE   on (default: the solver's default options) or off (PSCR alone, as the paper times)
# Environment: BUILD_DIR (default build), MAX_BUSY (default 10), WAIT_S (default 1800),
#   REPEAT (default 5), OUT (default bench/results/pscr-cpu.csv), MACHINE (default: CPU model
#   and core count from lscpu).
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cases=${1:-paper}
threads=${2:-1,2}
refine=${3:-on}
max_busy=${MAX_BUSY:-10}
wait_s=${WAIT_S:-1800}
repeat=${REPEAT:-5}
out=${OUT:-$root/bench/results/pscr-cpu.csv}
if [ -z "${MACHINE:-}" ]; then
  model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
  MACHINE="${model:-unknown} ($(nproc) cores)"
fi
cmake --build "$build" --target pscr_cpu_bench -j 2 > /dev/null
# The eigen-data initialization calls LAPACK: keep OpenBLAS from leaving spinning threads
# behind that compete with the solver's OpenMP threads.
export OPENBLAS_NUM_THREADS=1
expand() {
  case "$1" in
    paper) echo "p2-512 p2-1024 p2-2048 p2-4096 h2-511 h2-1023 h2-2047 h2-4095 p3-63 p3-127 p3-255 h3-63 h3-127 h3-255" ;;
    *) echo "${1//,/ }" ;;
  esac
}
# Percent of CPU time (all cores) not idle over 3 seconds, from /proc/stat.
busy() {
  local a b
  a=$(head -1 /proc/stat)
  sleep 3
  b=$(head -1 /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN {
    split(a, x); split(b, y); total = 0; idle = (y[5] + y[6]) - (x[5] + x[6]);
    for (i = 2; i <= 11; ++i) total += y[i] - x[i];
    printf "%d", (total > 0 ? 100 * (total - idle) / total : 0) }'
}
for c in $(expand "$cases"); do
  waited=0
  while [ "$(busy)" -ge "$max_busy" ] && [ "$waited" -lt "$wait_s" ]; do
    sleep 7
    waited=$((waited + 10))
  done
  "$build/bench/pscr_cpu_bench" --cases "$c" --threads "$threads" --repeat "$repeat" \
    --refine "$refine" --machine "${MACHINE//,/;}" --csv "$out" | tail -n +2
done

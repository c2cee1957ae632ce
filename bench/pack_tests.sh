#!/usr/bin/env bash
# Runs the GPU tests of a pack (bench/pack.sh) on the GPU machine, so that a device call verifies
# binaries built here without building there: test_tridiag_cuda in SHARDS gtest shards at once,
# beside them every other test_* executable of the pack one after another, then (where the pack
# has them) device_loop 2d and 3d and the shipped example solved with `pscr --backend gpu` and
# its residual checked. Each run's output goes to OUTDIR/NAME.log (test_tridiag_cuda-shardI.log);
# one summary line per run, as each finishes, to stdout and OUTDIR/summary.txt ("NAME: ok ..." or
# "NAME: FAILED ..." with gtest's counts, or the last line of a run that is not a gtest), so a
# call stopped at its time limit still returns the runs that finished. In a device call run it
# unpiped: what it printed comes back even when the call is stopped at its limit (a pipe into
# `tail` then returns nothing), while only some of the files under $OUT come back. Stopped by
# SIGTERM or SIGINT (`timeout`, which signals the children too), it first says of every run that
# had not finished how far it got ("NAME: STOPPED ..." with the gtest tests done and the one
# running), so a slow or hanging test is named even where the logs do not come back.
#
# Usage: bench/pack_tests.sh PACKDIR OUTDIR [--filter GTEST_FILTER] [--shards N] [--sanitize TOOL]
#   PACKDIR  a bench/pack.sh directory (its executables and libpscr.so.0)
#   OUTDIR   where the logs and summary.txt go (e.g. $OUT); created, an existing summary.txt and
#            logs of the same names replaced
#   --filter  only test_tridiag_cuda, with this gtest filter (e.g. 'CudaTridiagTest/1.*'); the
#             other executables, device_loop and the example are then not run
#   --shards  shards of test_tridiag_cuda run at once (default 4; at most one a selected test)
#   --sanitize  every test executable and device_loop under compute-sanitizer --tool TOOL
#             (memcheck, with device memory leaks checked; racecheck; synccheck; initcheck), any
#             error it reports failing the run (the summary then names the test running at its
#             first report and that report's first lines); the example is then not run. Expect
#             runs several times as long (use --filter for a part of test_tridiag_cuda).
# Exit code: 0 every run passed (a test skipped by GTEST_SKIP passes), 1 some run failed, the
# pack has no test_tridiag_cuda, it cannot list its tests or the filter selects none (or, with
# --sanitize, the machine has no compute-sanitizer), 2 bad arguments, 143 or 130 stopped by
# SIGTERM or SIGINT.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
usage() {
  echo "usage: bench/pack_tests.sh PACKDIR OUTDIR [--filter GTEST_FILTER] [--shards N]" \
    "[--sanitize TOOL] (see --help)" >&2
  exit 2
}
[ $# -ge 2 ] || usage
pack=$1 out=$2
shift 2
filter="" shards=4 tool=""
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) [ $# -ge 2 ] || usage; filter=$2; shift 2 ;;
    --shards) [ $# -ge 2 ] || usage; shards=$2; shift 2 ;;
    --sanitize) [ $# -ge 2 ] || usage; tool=$2; shift 2 ;;
    *) echo "pack_tests.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
  echo "pack_tests.sh: --shards must be a positive integer, got '$shards'" >&2
  exit 2
fi
case "$tool" in
  "" | memcheck | racecheck | synccheck | initcheck) ;;
  *)
    echo "pack_tests.sh: --sanitize expects memcheck, racecheck, synccheck or initcheck, got" \
      "'$tool'" >&2
    exit 2
    ;;
esac
if [ ! -f "$pack/PACKED" ]; then
  echo "pack_tests.sh: '$pack' is not a pack (no PACKED file; see bench/pack.sh)" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
pack=$(cd "$pack" && pwd)
mkdir -p "$out" || exit 2
summary="$out/summary.txt"
: > "$summary"
export LD_LIBRARY_PATH="$pack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# report NAME RC LOG: one summary line for a finished run.
report() {
  local name=$1 rc=$2 log=$3 counts
  counts=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$log" | sed 's/^\[ *//; s/ *\] /: /' |
    tr '\n' ' ')
  [ -n "$counts" ] || counts=$(tail -n 1 "$log")
  if [ "$rc" -eq 0 ]; then
    echo "$name: ok (exit 0) $counts" | tee -a "$summary"
  else
    echo "$name: FAILED (exit $rc) $counts" | tee -a "$summary"
    grep -E '^\[  FAILED  \] [^0-9]' "$log" | sort -u | head -n 20 | sed 's/^/    /' |
      tee -a "$summary"
    [ -z "$tool" ] || sanitizer_errors "$log" | sed 's/^/    /' | tee -a "$summary"
  fi
}
# sanitizer_errors LOG: the gtest test that was running at the sanitizer's first report and the
# first lines of its reports (the kernel and the access named), so that the summary says where a
# run failed under --sanitize even where the logs do not come back.
sanitizer_errors() {
  awk '/^\[ RUN +\] / { sub(/^\[ RUN +\] /, ""); test = $0; next }
       /^========= / && !/^========= (COMPUTE-SANITIZER|[A-Z]+ SUMMARY)/ {
         if (shown == 0 && test != "") print "in " test ":"
         if (shown++ < 8) print
       }' "$1"
}
# run NAME LOG COMMAND...: runs COMMAND, its output into LOG, and reports it; returns its status.
# Each run is listed in status_dir as started (with its log and process id), then as finished, for
# stopped.
run() {
  local name=$1 log=$2 pid rc
  shift 2
  "$@" > "$log" 2>&1 &
  pid=$!
  printf '%s\t%s\t%s\n' "$name" "$log" "$pid" >> "$status_dir/started"
  wait "$pid"
  rc=$?
  report "$name" "$rc" "$log"
  echo "$name" >> "$status_dir/finished"
  return "$rc"
}
# stopped SIGNAL: on SIGTERM or SIGINT, every run started and not finished is stopped too (where
# the signal reached this script alone) and reported in one line (the gtest tests it finished and
# the last one it started, from its log); then exit 128 + the signal's number.
stopped() {
  local name log pid tests_done running
  # The runners of shards first (subshells: they die without reporting the run they wait for).
  # shellcheck disable=SC2046  # one process id per word
  kill -TERM $(jobs -p) 2> /dev/null
  while IFS=$'\t' read -r name log pid; do
    grep -qxF -- "$name" "$status_dir/finished" 2> /dev/null && continue
    kill -TERM "$pid" 2> /dev/null
    tests_done=$(grep -cE '^\[ +(OK|FAILED) +\] .* \([0-9]+ ms\)$' "$log" 2> /dev/null)
    running=$(grep -E '^\[ RUN +\] ' "$log" 2> /dev/null | tail -n 1 | sed -E 's/^\[ RUN +\] //')
    [ -z "$running" ] || running="; the last started: $running"
    echo "$name: STOPPED before it finished (gtest tests done: ${tests_done:-0}$running)" |
      tee -a "$summary"
  done < "$status_dir/started"
  exit $((128 + $1))
}

# The command prefix of every checked run: compute-sanitizer with --sanitize, else nothing.
checked=()
if [ -n "$tool" ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$sanitizer" ]; then
    echo "pack_tests.sh: --sanitize: compute-sanitizer not found" | tee -a "$summary" >&2
    exit 1
  fi
  checked=("$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20)
  [ "$tool" = memcheck ] && checked+=(--leak-check full)
fi
echo "pack: $(head -n 1 "$pack/PACKED")${tool:+ (under compute-sanitizer --tool $tool)}" |
  tee -a "$summary"
if [ ! -x "$pack/test_tridiag_cuda" ]; then
  echo "pack_tests.sh: the pack has no test_tridiag_cuda" | tee -a "$summary" >&2
  exit 1
fi
# No more shards than the tests the filter selects (gtest deals them round robin): a shard of no
# test fails under compute-sanitizer, which reports an application that made no CUDA call.
list_log="$out/test_tridiag_cuda-list.log"
if ! listed=$("$pack/test_tridiag_cuda" --gtest_list_tests ${filter:+"--gtest_filter=$filter"} \
    2> "$list_log"); then
  echo "pack_tests.sh: test_tridiag_cuda --gtest_list_tests failed: $(tail -n 1 "$list_log")" |
    tee -a "$summary" >&2
  exit 1
fi
selected=$(grep -c '^  ' <<< "$listed")
if [ "$selected" -eq 0 ]; then
  echo "pack_tests.sh: the filter '$filter' selects no test of test_tridiag_cuda" |
    tee -a "$summary" >&2
  exit 1
fi
[ "$shards" -le "$selected" ] || shards=$selected
status_dir=$(mktemp -d)
: > "$status_dir/started"
trap 'rm -rf "$status_dir"' EXIT
trap 'stopped 15' TERM
trap 'stopped 2' INT
for ((i = 0; i < shards; i++)); do
  (
    export GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i
    run "test_tridiag_cuda shard $((i + 1))/$shards" "$out/test_tridiag_cuda-shard$i.log" \
      "${checked[@]}" "$pack/test_tridiag_cuda" ${filter:+"--gtest_filter=$filter"} ||
      touch "$status_dir/failed"
  ) &
done
if [ -z "$filter" ]; then
  (
    for exe in "$pack"/test_*; do
      name=$(basename "$exe")
      [ "$name" = test_tridiag_cuda ] && continue
      [ -x "$exe" ] || continue
      run "$name" "$out/$name.log" "${checked[@]}" "$exe" || touch "$status_dir/failed"
    done
  ) &
fi
wait
if [ -z "$filter" ]; then
  if [ -x "$pack/device_loop" ]; then
    for dim in 2d 3d; do
      run "device_loop $dim" "$out/device_loop-$dim.log" "${checked[@]}" "$pack/device_loop" \
        "$dim" || touch "$status_dir/failed"
    done
  fi
  if [ -x "$pack/pscr" ] && [ -z "$tool" ]; then
    run "example (pscr solve --backend gpu, pscr residual)" "$out/example.log" \
      "$root/scripts/check-example-gpu.sh" "$pack/pscr" "$status_dir/helmholtz-2d-solution.h5" ||
      touch "$status_dir/failed"
  fi
fi
if [ -e "$status_dir/failed" ]; then
  echo "pack_tests.sh: some run failed (see $summary)" >&2
  exit 1
fi
echo "pack_tests.sh: every run passed" | tee -a "$summary"

#!/usr/bin/env bash
# read_patterns_bench's command line, without a GPU: --help and -h exit 0 with the usage; no
# arguments, an option where OUTPUT.csv belongs, an option without its value, an unknown option, a
# malformed count, an unknown or empty pattern list and a warp count not offered exit 2 with a
# message naming what was wrong; good arguments on a machine without a GPU exit 1 ("no CUDA
# device"). None of them writes the output. (The runs need a GPU.)
# Usage: test_read_patterns_bench_cli.sh PATH/TO/read_patterns_bench
set -u
exe=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
out="$tmp/out.csv"
expect() { expect_exe "$exe" "$out" "$@"; }  # EXIT_CODE PATTERN ARGS...
expect 0 "and of the resident" --help
expect 0 "usage: read_patterns_bench OUTPUT.csv" -h
expect 2 "usage: read_patterns_bench OUTPUT.csv"
expect 2 "expected OUTPUT.csv first, found '--reps'" --reps 3 "$out"
expect 2 "--reps: expected a positive integer after it" "$out" --reps
expect 2 "unknown argument '--fast'" "$out" --fast
expect 2 "--reps: expected a positive integer, found 'many'" "$out" --reps many
expect 2 "--reps: expected a positive integer, found '0'" "$out" --reps 0
expect 2 "--reps: expected a positive integer, found '99999999999'" "$out" --reps 99999999999
expect 0 "--only LIST" --help
expect 2 "--only: expected a list of patterns after it" "$out" --only
expect 2 "--only: expected a list of patterns after it" "$out" --only ""
expect 2 "--only: expected patterns among stream, units, bulk, resident, lagged, found 'copy'" \
  "$out" --only lagged,copy
expect 0 "--warps-per-sm LIST" --help
expect 2 "--warps-per-sm: expected a list of warp counts after it" "$out" --warps-per-sm
expect 2 "--warps-per-sm: expected a positive integer, found 'x'" "$out" --warps-per-sm 16,x
expect 2 "--warps-per-sm: expected warps per SM among 8, 16, 32, found '12'" \
  "$out" --warps-per-sm 8,12
if ! nvidia-smi -L > /dev/null 2>&1; then
  expect 1 "no CUDA device" "$out" --reps 3
  expect 1 "no CUDA device" "$out" --only lagged,units
  expect 1 "no CUDA device" "$out" --only lagged --warps-per-sm 16,32
fi
exit $fail

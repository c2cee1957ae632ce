#!/usr/bin/env bash
# solve_host_bench's command line, without a GPU: --help and -h exit 0 with the usage; no
# arguments, an option without its value, an unknown option and a malformed count exit 2 with a
# message naming what was wrong; good arguments on a machine without a GPU exit 1 ("no CUDA
# device"). None of them writes the output. (The runs need a GPU: bench/solve_host_bench.cu.)
# Usage: test_solve_host_bench_cli.sh PATH/TO/solve_host_bench
set -u
exe=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
out="$tmp/out.csv"
expect() { expect_exe "$exe" "$out" "$@"; }  # EXIT_CODE PATTERN ARGS...
expect 0 "usage: solve_host_bench OUTPUT.csv .*--goal-shapes" --help
expect 0 "usage: solve_host_bench OUTPUT.csv" -h
expect 2 "usage: solve_host_bench OUTPUT.csv"
expect 2 "--reps: expected a positive integer after it" "$out" --reps
expect 2 "--calls: expected a positive integer after it" "$out" --goal-shapes --calls
expect 2 "unknown argument '--fast'" "$out" --fast
expect 2 "--reps: expected a positive integer, found 'many'" "$out" --reps many
expect 2 "--calls: expected a positive integer, found '0'" "$out" --calls 0
if ! nvidia-smi -L > /dev/null 2>&1; then
  expect 1 "no CUDA device" "$out" --goal-shapes --reps 3
fi
exit $fail

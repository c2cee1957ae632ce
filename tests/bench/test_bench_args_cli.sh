#!/usr/bin/env bash
# The command lines of the benchmarks that parse their own arguments (eigen_init_bench,
# pscr_cpu_bench, and where CUDA is built pscr_gpu_bench and peers_bench): --help and -h exit 0
# with the usage; an unknown option, a missing or malformed value and an unknown name exit 2 with a
# message naming what was wrong, and write nothing; the CPU ones then run a small case, the GPU ones
# exit 1 ("no CUDA device") where there is no GPU.
# Usage: test_bench_args_cli.sh EIGEN_INIT_BENCH PSCR_CPU_BENCH [PSCR_GPU_BENCH PEERS_BENCH]
set -u
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
out="$tmp/out.csv"

exe=$1
expect() { expect_exe "$exe" "$out" "$@"; }  # EXIT_CODE PATTERN ARGS...
expect 0 "usage: eigen_init_bench \[OUTPUT.csv \[MAX_N1\]\]" --help
expect 0 "usage: eigen_init_bench" -h
expect 2 "unknown option '--fast'" --fast
expect 2 "MAX_N1: expected a positive integer, found 'big'" "$out" big
expect 2 "MAX_N1: expected at least 255, found 100" "$out" 100
expect 2 "expected at most 2 arguments, found 3" "$out" 255 extra
expect 0 "identity" "$out" 255
grep -q "^poisson,uniform,255," "$out" || { echo "FAIL: eigen_init_bench wrote no row for n1 = 255"; fail=1; }
rm -f "$out"

exe=$2
expect 0 "usage: pscr_cpu_bench \[--cases LIST\]" --help
expect 0 "usage: pscr_cpu_bench" -h
expect 2 "unknown argument '--fast'" --fast
expect 2 "--repeat: expected a positive integer, found 'abc'" --repeat abc
expect 2 "--threads: expected a positive integer, found '0'" --threads 1,0
expect 2 "--cases: unknown case 'p2-7'" --cases p2-512,p2-7
expect 2 "--refine: expected on or off, found 'maybe'" --refine maybe
expect 2 "--csv: expected a value after it" --csv
expect 0 "unknown,p2-512,poisson,2,512," --cases p2-512 --threads 1 --repeat 1 --csv "$out"
rm -f "$out"

if [ $# -ge 4 ]; then
  exe=$3
  expect 0 "usage: pscr_gpu_bench --csv FILE" --help
  expect 2 "--csv FILE is required"
  expect 2 "unknown argument '--fast'" --csv "$out" --fast
  expect 2 "--reps: expected a positive integer, found 'abc'" --csv "$out" --reps abc
  expect 2 "--max-solve-s: expected a positive number, found '0'" --csv "$out" --max-solve-s 0
  expect 2 "--only: expected poisson2d, helmholtz2d, poisson3d or helmholtz3d, found 'p2'" --csv "$out" --only p2
  expect 2 "--sizes: expected a positive integer, found 'a'" --csv "$out" --sizes 511,a
  expect 2 "--stages: expected fused, separate or both" --csv "$out" --stages all
  expect 2 "--sizes 3: no sweep has this size (name the sweep with --only" --csv "$out" --sizes 3
  exe=$4
  expect 0 "usage: peers_bench --csv PATH" --help
  expect 2 "--csv PATH is required"
  expect 2 "unknown argument '--fast'" --csv "$out" --fast
  expect 2 "--reps: expected at least 10, found 5" --csv "$out" --reps 5
  expect 2 "--setup-budget-s: expected a positive number, found 'x'" --csv "$out" --setup-budget-s x
  if ! nvidia-smi -L > /dev/null 2>&1; then
    exe=$3
    expect 1 "no CUDA device" --csv "$out" --quick
    expect 1 "no CUDA device" --csv "$out" --only helmholtz2d --sizes 3,47
    exe=$4
    expect 1 "no CUDA device" --csv "$out" --quick
  fi
fi
exit $fail

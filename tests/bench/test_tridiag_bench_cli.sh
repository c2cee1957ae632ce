#!/usr/bin/env bash
# tridiag_bench's command line, without a GPU: --help exits 0 with the usage; no arguments, an
# option without its value, an unknown option, an unknown method, layout, scalar type, form,
# rows per thread or kind of systems, Helmholtz systems without --scalars complex, Poisson ones
# without --scalars real, and a malformed count or shape exit 2 with a message naming what was
# wrong and write nothing. (With good arguments the run needs a GPU: bench/tridiag_bench.sh on the GPU
# machine.)
# Usage: test_tridiag_bench_cli.sh PATH/TO/tridiag_bench
set -u
exe=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
out="$tmp/out.csv"
expect() { expect_exe "$exe" "$out" "$@"; }  # EXIT_CODE PATTERN ARGS...
expect 0 "usage: tridiag_bench OUTPUT.csv" --help
expect 2 "usage: tridiag_bench OUTPUT.csv"
expect 2 "--reps: expected a value after it" "$out" --reps
expect 2 "unknown argument '--fast'" "$out" --fast 1
expect 2 "--methods: expected one or more of thomas, .* found 'blok'" "$out" --methods block,blok
expect 2 "--layouts: expected one or more of contiguous, interleaved, found 'rows'" "$out" \
  --layouts rows
expect 2 "--scalars: expected one or more of real, complex, found 'float'" "$out" \
  --scalars real,float
expect 2 "--forms: expected one or more of shifted, general, found 'tiled'" "$out" --forms tiled
expect 2 "--rows: expected one or more of 2, 4, 8, 16, found '3'" "$out" --rows 8,3
expect 2 "--reps: expected a positive integer, found 'many'" "$out" --reps many
expect 2 "--shapes: expected n:batch, found '64'" "$out" --shapes 64
expect 2 "--shapes batch: expected a positive integer, found '0'" "$out" --shapes 64:0
expect 2 "--systems: expected dominant, helmholtz or poisson, found 'random'" "$out" --systems random
expect 2 "--systems helmholtz: expected --scalars complex .* found both scalar types" "$out" \
  --systems helmholtz
expect 2 "found --scalars real" "$out" --scalars real --systems helmholtz
expect 2 "--systems poisson: expected --scalars real .* found --scalars complex" "$out" \
  --scalars complex --systems poisson
exit $fail

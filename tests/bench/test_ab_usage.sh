#!/usr/bin/env bash
# bench/ab.sh's command line: --help exits 0 and prints the usage; missing or bad arguments (too
# few, no base tree, a base without CMakeLists.txt, an unknown target, a non-positive round
# count) exit 2 with a message naming what was wrong, before anything is built or written.
# Usage: test_ab_usage.sh PATH/TO/bench/ab.sh
set -u
ab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # EXIT_CODE PATTERN ARGS...
  local want=$1 pattern=$2
  shift 2
  local text rc
  text=$(bash "$ab" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" <<< "$text"; then
    echo "FAIL: ab.sh $* -> exit $rc (want $want), output: $text"
    fail=1
  fi
}
mkdir -p "$tmp/base" "$tmp/empty"
: > "$tmp/base/CMakeLists.txt"
expect 0 "Usage: bench/ab.sh BASE_DIR OUTDIR TARGET ROUNDS" --help
expect 2 "Usage:" "$tmp/base" "$tmp/out"
expect 2 "no base tree" "$tmp/missing" "$tmp/out" tridiag_bench 1
expect 2 "holds no CMakeLists.txt" "$tmp/empty" "$tmp/out" tridiag_bench 1
expect 2 "TARGET must be pscr_gpu_bench or tridiag_bench, found 'peers'" "$tmp/base" "$tmp/out" peers 1
expect 2 "ROUNDS must be a positive integer, found '0'" "$tmp/base" "$tmp/out" tridiag_bench 0
expect 2 "ROUNDS must be a positive integer, found 'two'" "$tmp/base" "$tmp/out" tridiag_bench two
if [ -e "$tmp/out" ]; then
  echo "FAIL: a rejected command line created $tmp/out"
  fail=1
fi
exit $fail

#!/usr/bin/env bash
# bench/ab.sh: its command line, and a whole run on stand-in trees.
# --help exits 0 and prints the usage. Missing or bad arguments exit 2 with a message naming what
# was wrong, before anything is built or written: too few, no base tree, a base without
# CMakeLists.txt, one bad tree among several, two baselines of the same directory name or one
# named new, an empty entry, the working tree itself, an unknown target, a non-positive round
# count. Then a whole run on stand-in trees (a CMake project whose tridiag_bench target is a
# script writing one CSV row that names its tree): two baselines and the working tree, built at
# once, run in order for 2 rounds into one CSV with the variant and round columns; a baseline
# that does not configure exits 1 with its log's end.
# Usage: test_ab.sh PATH/TO/bench/ab.sh
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
mkdir -p "$tmp/base" "$tmp/empty" "$tmp/other/base" "$tmp/new"
for tree in base other/base new; do : > "$tmp/$tree/CMakeLists.txt"; done
expect 0 "Usage: bench/ab.sh BASE_DIR.*OUTDIR TARGET ROUNDS" --help
expect 2 "Usage:" "$tmp/base" "$tmp/out"
expect 2 "no base tree" "$tmp/missing" "$tmp/out" tridiag_bench 1
expect 2 "holds no CMakeLists.txt" "$tmp/empty" "$tmp/out" tridiag_bench 1
expect 2 "no base tree '$tmp/missing'" "$tmp/base,$tmp/missing" "$tmp/out" tridiag_bench 1
expect 2 "holds no CMakeLists.txt" "$tmp/base,$tmp/empty" "$tmp/out" tridiag_bench 1
expect 2 "would both be named 'base'" "$tmp/base,$tmp/other/base" "$tmp/out" tridiag_bench 1
expect 2 "would both be named 'new'" "$tmp/base,$tmp/new" "$tmp/out" tridiag_bench 1
expect 2 "an empty base tree in '$tmp/base,'" "$tmp/base," "$tmp/out" tridiag_bench 1
expect 2 "an empty base tree in ',$tmp/base'" ",$tmp/base" "$tmp/out" tridiag_bench 1
expect 2 "is the working tree" "$(dirname "$ab")/.." "$tmp/out" tridiag_bench 1
expect 2 "TARGET must be pscr_gpu_bench or tridiag_bench, found 'peers'" "$tmp/base" "$tmp/out" peers 1
expect 2 "ROUNDS must be a positive integer, found '0'" "$tmp/base" "$tmp/out" tridiag_bench 0
expect 2 "ROUNDS must be a positive integer, found 'two'" "$tmp/base" "$tmp/out" tridiag_bench two
if [ -e "$tmp/out" ]; then
  echo "FAIL: a rejected command line created $tmp/out"
  fail=1
fi

if command -v cmake > /dev/null; then
  stand_in() {  # DIR NAME: a tree whose tridiag_bench writes "n,tree" and "1,NAME" to its $1
    mkdir -p "$1"
    printf '#!/bin/sh\nprintf "n,tree\\n1,%s\\n" > "$1"\n' "$2" > "$1/bench.sh"
    chmod +x "$1/bench.sh"
    cat > "$1/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(stand_in NONE)
add_custom_target(tridiag_bench
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bench
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/bench.sh
          ${CMAKE_BINARY_DIR}/bench/tridiag_bench)
CMAKE
  }
  stand_in "$tmp/run/v1" v1
  stand_in "$tmp/run/v2" v2
  stand_in "$tmp/run/root" root
  mkdir -p "$tmp/run/root/bench"
  cp "$ab" "$tmp/run/root/bench/ab.sh"
  if ! bash "$tmp/run/root/bench/ab.sh" "$tmp/run/v1,$tmp/run/v2" "$tmp/run/out" tridiag_bench 2 \
      > "$tmp/run/stdout" 2>&1; then
    echo "FAIL: the stand-in run exited non-zero:"
    cat "$tmp/run/stdout"
    fail=1
  fi
  want=$(printf '%s\n' variant,round,n,tree v1,1,1,v1 v2,1,1,v2 new,1,1,root \
    v1,2,1,v1 v2,2,1,v2 new,2,1,root)
  got=$(cat "$tmp/run/out/ab-tridiag_bench.csv" 2> /dev/null)
  if [ "$got" != "$want" ]; then
    echo "FAIL: the stand-in run's CSV is"
    echo "$got"
    echo "expected"
    echo "$want"
    fail=1
  fi
  # A baseline that does not build: exit 1, its log's end on stderr.
  mkdir -p "$tmp/run/broken"
  echo 'message(FATAL_ERROR "stand-in configure error")' > "$tmp/run/broken/CMakeLists.txt"
  text=$(bash "$tmp/run/root/bench/ab.sh" "$tmp/run/broken" "$tmp/run/out2" tridiag_bench 1 2>&1)
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q "the base build failed" <<< "$text" ||
      ! grep -q "stand-in configure error" <<< "$text"; then
    echo "FAIL: a broken baseline -> exit $rc (want 1), output: $text"
    fail=1
  fi
fi
exit $fail

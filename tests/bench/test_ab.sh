#!/usr/bin/env bash
# bench/ab.sh: its command line, and a whole run on stand-in trees.
# --help exits 0 and prints the usage. Missing or bad arguments exit 2 with a message naming what
# was wrong, before anything is built or written: too few, no base tree, a base without
# CMakeLists.txt, one bad tree among several, two baselines of the same directory name or one
# named new, an empty entry, the working tree itself, an unknown target, a non-positive round
# count. Then a whole run on stand-in trees (a CMake project whose tridiag_bench target is a
# script writing one CSV row that names its tree): two baselines and the working tree, built at
# once, run in order for 2 rounds into one CSV with the variant and round columns; a baseline
# that does not configure exits 1 with its log's end. Packed binaries (bench/pack.sh) as the
# baseline and as the working tree (PSCR_AB_NEW) run without a build; a pack without the target,
# or a PSCR_AB_NEW that is not a pack, exits 2.
# Usage: test_ab.sh PATH/TO/bench/ab.sh
set -u
ab=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
expect() { expect_cli "$ab" "$@"; }  # EXIT_CODE PATTERN ARGS...
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
  # Packed binaries (bench/pack.sh) as the baseline and, through PSCR_AB_NEW, as the working
  # tree: run as they are, nothing built; the working tree's own build is not touched.
  packed_stand_in() {  # DIR NAME: a pack whose tridiag_bench writes "n,tree" and "1,NAME"
    mkdir -p "$1"
    printf '#!/bin/sh\nprintf "n,tree\\n1,%s\\n" > "$1"\n' "$2" > "$1/tridiag_bench"
    chmod +x "$1/tridiag_bench"
    echo "stand-in revision" > "$1/PACKED"
  }
  packed_stand_in "$tmp/run/packed-base" pb
  packed_stand_in "$tmp/run/packed-new" pn
  if ! PSCR_AB_NEW="$tmp/run/packed-new" bash "$tmp/run/root/bench/ab.sh" \
      "$tmp/run/packed-base" "$tmp/run/out3" tridiag_bench 2 > "$tmp/run/stdout3" 2>&1; then
    echo "FAIL: the packed run exited non-zero:"
    cat "$tmp/run/stdout3"
    fail=1
  fi
  want=$(printf '%s\n' variant,round,n,tree base,1,1,pb new,1,1,pn base,2,1,pb new,2,1,pn)
  got=$(cat "$tmp/run/out3/ab-tridiag_bench.csv" 2> /dev/null)
  if [ "$got" != "$want" ] || grep -q "== build" "$tmp/run/stdout3"; then
    echo "FAIL: the packed run's CSV is"
    echo "$got"
    echo "expected (and no build)"
    echo "$want"
    fail=1
  fi
  # A pack without the target, and a PSCR_AB_NEW that is not a pack: exit 2 before any build.
  mkdir -p "$tmp/run/packed-empty"
  echo "stand-in revision" > "$tmp/run/packed-empty/PACKED"
  expect 2 "the packed baseline '$tmp/run/packed-empty' holds no executable tridiag_bench" \
    "$tmp/run/packed-empty" "$tmp/out" tridiag_bench 1
  text=$(PSCR_AB_NEW="$tmp/run/v1" bash "$ab" "$tmp/run/packed-base" "$tmp/out" tridiag_bench 1 2>&1)
  rc=$?
  if [ $rc -ne 2 ] || ! grep -q "PSCR_AB_NEW='$tmp/run/v1' is not a directory made by bench/pack.sh" <<< "$text"; then
    echo "FAIL: PSCR_AB_NEW of a source tree -> exit $rc (want 2), output: $text"
    fail=1
  fi
  if [ -e "$tmp/out" ]; then
    echo "FAIL: a rejected packed command line created $tmp/out"
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

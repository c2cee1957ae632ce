#!/usr/bin/env bash
# bench/pack.sh: --help exits 0; too few arguments, a BUILD_DIR without CMakeCache.txt, a NAME
# with a slash and an OUTDIR that holds something but an earlier pack exit 2, before anything is
# written; an executable or libpscr.so.0 missing from the build exits 1. Then a pack of a stand-in
# build (libpscr.so.0 a link to the versioned file, executables under bench/ and tests/tridiag/,
# a same-named file under CMakeFiles/ that is not taken): the executables and the library's file
# (not the link) side by side with PACKED, and a second pack into the same directory replaces the
# first. PACKED names the revision of the build's source tree (CMAKE_HOME_DIRECTORY) where that is
# a git checkout of its own, its path where it is not (a tree exported inside another checkout).
# Usage: test_pack.sh PATH/TO/bench/pack.sh
set -u
pack=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
expect() { expect_cli "$pack" "$@"; }  # EXIT_CODE PATTERN ARGS...
build="$tmp/build"
mkdir -p "$build/bench" "$build/tests/tridiag" "$build/CMakeFiles/x" "$tmp/other"
source_dir="$tmp/exported"  # inside no git checkout of its own
mkdir -p "$source_dir"
echo "CMAKE_HOME_DIRECTORY:INTERNAL=$source_dir" > "$build/CMakeCache.txt"
echo library > "$build/libpscr.so.0.1.0"
ln -s libpscr.so.0.1.0 "$build/libpscr.so.0"
for exe in bench/tridiag_bench tests/tridiag/test_tridiag_cuda CMakeFiles/x/tridiag_bench; do
  echo "#!/bin/sh # $exe" > "$build/$exe"
  chmod +x "$build/$exe"
done
echo keep > "$tmp/other/file"

expect 0 "Usage: bench/pack.sh BUILD_DIR OUTDIR NAME" --help
expect 2 "usage:" "$build" "$tmp/out"
expect 2 "is not a build directory" "$tmp/other" "$tmp/out" tridiag_bench
expect 2 "NAME must be an executable's file name, found 'bench/tridiag_bench'" \
  "$build" "$tmp/out" bench/tridiag_bench
expect 2 "exists and is not an earlier pack" "$build" "$tmp/other" tridiag_bench
expect 1 "no executable 'pscr_gpu_bench'" "$build" "$tmp/out" tridiag_bench pscr_gpu_bench
if [ -e "$tmp/out" ] || [ "$(cat "$tmp/other/file")" != keep ]; then
  echo "FAIL: a rejected command line wrote $tmp/out or touched $tmp/other"
  fail=1
fi
expect 0 "tridiag_bench test_tridiag_cuda and libpscr.so.0" \
  "$build" "$tmp/out" tridiag_bench test_tridiag_cuda
got=$(cd "$tmp/out" 2> /dev/null && ls | tr '\n' ' ')
if [ "$got" != "PACKED libpscr.so.0 test_tridiag_cuda tridiag_bench " ] ||
    [ -L "$tmp/out/libpscr.so.0" ] || [ "$(cat "$tmp/out/libpscr.so.0")" != library ] ||
    [ ! -x "$tmp/out/tridiag_bench" ] || grep -q CMakeFiles "$tmp/out/tridiag_bench" ||
    [ ! -s "$tmp/out/PACKED" ]; then
  echo "FAIL: the pack holds '$got' (want PACKED, the library's file and two executables)"
  fail=1
fi
if [ "$(head -n 1 "$tmp/out/PACKED")" != "$source_dir (not a git checkout)" ]; then
  echo "FAIL: PACKED names '$(head -n 1 "$tmp/out/PACKED")' for a source tree outside git"
  fail=1
fi
git init -q "$source_dir" && echo a > "$source_dir/a" && git -C "$source_dir" add a &&
  git -C "$source_dir" -c user.name=test -c user.email=test@example.com commit -qm a
rev=$(git -C "$source_dir" rev-parse --short HEAD)
expect 0 "tridiag_bench and libpscr.so.0 of $rev in" "$build" "$tmp/out" tridiag_bench
echo b > "$source_dir/a"
expect 0 "of $rev with uncommitted changes in" "$build" "$tmp/out" tridiag_bench
if [ "$(head -n 1 "$tmp/out/PACKED")" != "$rev with uncommitted changes" ]; then
  echo "FAIL: PACKED names '$(head -n 1 "$tmp/out/PACKED")' (want $rev with uncommitted changes)"
  fail=1
fi
if [ -e "$tmp/out/test_tridiag_cuda" ]; then
  echo "FAIL: a second pack into $tmp/out kept the first one's test_tridiag_cuda"
  fail=1
fi
rm "$build/libpscr.so.0"
expect 1 "no $build/libpscr.so.0" "$build" "$tmp/out2" tridiag_bench
exit $fail

#!/usr/bin/env bash
# Packs executables of a CUDA build made on this machine, with the library they link
# (libpscr.so.0), into one directory that the GPU machine runs as it is: bench/ab.sh takes it as
# a baseline or, through PSCR_AB_NEW, as the working tree, so that an A/B device call spends no
# time building. The binaries must run there: the device's system libraries (glibc, HDF5,
# LAPACKE, the CUDA runtime and cuSPARSE of the same major version) are the same or newer, and
# bench/ab.sh checks that every shared library resolves before it runs anything.
#
# Usage: bench/pack.sh BUILD_DIR OUTDIR NAME [NAME...]
#   BUILD_DIR  a build directory configured with -DPSCR_ENABLE_CUDA=ON (and
#              -DCMAKE_CUDA_ARCHITECTURES=90 for the Hopper GPUs), its targets already built
#   OUTDIR     where the pack goes (e.g. .ab/new, ignored by git; carry .ab in the device call);
#              a directory that holds anything but an earlier pack is refused, an earlier pack
#              is replaced
#   NAME       executables of the build to pack, by file name: tridiag_bench, pscr_gpu_bench,
#              test_tridiag_cuda, ...
# Writes OUTDIR/NAME..., OUTDIR/libpscr.so.0 (the file, not the link) and OUTDIR/PACKED (the
# revision of the build's source tree when packed, so build right before packing, or that tree's
# path where it is not a git checkout; then where and when). Run one on
# the device with LD_LIBRARY_PATH=OUTDIR.
# Exit code: 0 packed, 1 an executable or the library not found in BUILD_DIR, 2 bad arguments or
# an OUTDIR that is not a pack.
set -euo pipefail
if [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; }; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -lt 3 ]; then
  echo "usage: bench/pack.sh BUILD_DIR OUTDIR NAME [NAME...] (see --help)" >&2
  exit 2
fi
build=$1 out=$2
shift 2
[ -f "$build/CMakeCache.txt" ] || { echo "pack: '$build' is not a build directory (no CMakeCache.txt)" >&2; exit 2; }
if [ -e "$out" ] && { [ ! -d "$out" ] || { [ -n "$(ls -A "$out")" ] && [ ! -f "$out/PACKED" ]; }; }; then
  echo "pack: '$out' exists and is not an earlier pack (no PACKED): not overwritten" >&2
  exit 2
fi
lib="$build/libpscr.so.0"
[ -e "$lib" ] || { echo "pack: no $lib (build the pscr target first)" >&2; exit 1; }
exes=()
for name in "$@"; do
  case "$name" in
    */* | '' | PACKED | libpscr.so.0) echo "pack: NAME must be an executable's file name, found '$name'" >&2; exit 2 ;;
  esac
  exe=$(find "$build" -maxdepth 3 -type f -name "$name" -perm -u+x -not -path '*/CMakeFiles/*' -print -quit)
  [ -n "$exe" ] || { echo "pack: no executable '$name' in $build (build its target first)" >&2; exit 1; }
  exes+=("$exe")
done
rm -rf "$out"
mkdir -p "$out"
cp -L "$lib" "$out/libpscr.so.0"
cp "${exes[@]}" "$out/"
# The build's own source tree (CMAKE_HOME_DIRECTORY): its revision where it is a git checkout of
# its own, not a tree exported under another checkout (bench/ab.sh's .ab/base).
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
toplevel=$(git -C "$source_dir" rev-parse --show-toplevel 2> /dev/null || true)
if [ -z "$source_dir" ]; then
  revision="unknown source (no CMAKE_HOME_DIRECTORY in $build/CMakeCache.txt)"
elif [ ! -d "$source_dir" ]; then
  revision="$source_dir (no longer there)"
elif [ "$toplevel" = "$(cd "$source_dir" && pwd -P)" ]; then
  revision=$(git -C "$source_dir" rev-parse --short HEAD)
  git -C "$source_dir" diff --quiet HEAD || revision="$revision with uncommitted changes"
else
  revision="$source_dir (not a git checkout)"
fi
{
  echo "$revision"
  echo "built in $(cd "$build" && pwd) on $(hostname), packed $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "$(ldd --version 2>&1 | head -n 1)"
} > "$out/PACKED"
echo "pack: $* and libpscr.so.0 of $revision in $out"

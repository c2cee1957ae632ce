#!/usr/bin/env bash
# cmake --install the build tree into a scratch prefix, then configure, build and run a consumer
# project that finds it with find_package(pscr) and links pscr::pscr.
set -euo pipefail
build=$1 consumer=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
test -x "$work/prefix/bin/pscr"
"$work/prefix/bin/pscr" --version
cmake -S "$consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$work/build" > /dev/null
"$work/build/consumer"

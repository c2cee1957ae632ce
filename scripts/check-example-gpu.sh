#!/usr/bin/env bash
# Solves the shipped example (examples/helmholtz-2d.h5) on the GPU (`pscr solve --backend gpu`)
# and checks the solution's residual (`pscr residual`), both at a tolerance of 1e-9: the
# end-to-end GPU check of scripts/gpu-check.sh and bench/pack_tests.sh.
# Usage: scripts/check-example-gpu.sh PSCR SOLUTION [SOLVE_ARGS...]
#   PSCR        the pscr executable (a build's apps/pscr, or a pack's pscr)
#   SOLUTION    where the solution is written (replaced if it exists), removed afterwards
#   SOLVE_ARGS  more arguments of `pscr solve` (e.g. --eigen-data FILE)
# Exit code: 0 solved within the tolerance; 2 bad arguments; otherwise the exit code of the
# `pscr solve` or `pscr residual` that failed.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/check-example-gpu.sh PSCR SOLUTION [SOLVE_ARGS...] (see --help)" >&2
  exit 2
fi
pscr=$1 solution=$2
shift 2
example="$(cd "$(dirname "$0")/.." && pwd)/examples/helmholtz-2d.h5"
"$pscr" solve "$example" -o "$solution" --backend gpu --force --tolerance 1e-9 "$@" &&
  "$pscr" residual "$example" "$solution" --tolerance 1e-9
status=$?
rm -f "$solution"
exit $status

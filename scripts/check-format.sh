#!/usr/bin/env bash
# Fails if a C++/CUDA source of the project is not formatted by the repository's .clang-format.
# Usage: scripts/check-format.sh (no arguments)
# Exit code: 0 when every file is formatted; 1 otherwise, with the files that are not listed.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # the comment above, from line 2
  sed -n "2,$((LINENO - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh')
[ ${#files[@]} -gt 0 ] || exit 0
if ! clang-format --dry-run --Werror "${files[@]}" 2> /tmp/pscr-format.log; then
  grep -E "^[^ ].*(warning|error):" /tmp/pscr-format.log | cut -d: -f1 | sort -u | sed 's/^/needs clang-format: /'
  echo "run: clang-format -i \$(git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh')" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"

#!/usr/bin/env bash
# Every script of bench/ and scripts/ answers --help and -h with its usage (a line starting
# "Usage:", or argparse's "usage:" for bench's Python scripts) and exit code 0, without doing its
# work: the help must come before anything runs (scripts/test.sh would otherwise build and test,
# scripts/install-deps.sh install). Bench's Python scripts also end quietly when their reader has
# gone (`--help | head`): no traceback, as for other Unix tools (SIGPIPE's default action).
# Usage: test_script_help.sh REPO_ROOT
set -uo pipefail
root=${1:?usage: test_script_help.sh REPO_ROOT}
# A PATH with sed only (the help's one command): a script that went on to its work would fail on
# the first other command instead of doing it.
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
ln -s "$(command -v sed)" "$stub/sed"
failed=0
# expect_usage SCRIPT PATTERN COMMAND...: COMMAND (SCRIPT with --help or -h) exits 0 and prints a
# line matching PATTERN (grep -E).
expect_usage() {
  local script=$1 pattern=$2 out rc
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! grep -qE "$pattern" <<< "$out"; then
    echo "FAIL: ${script#"$root"/} ${*: -1} exited $rc; printed:" >&2
    head -n 5 <<< "$out" >&2
    failed=1
  fi
}
for script in "$root"/bench/*.sh "$root"/scripts/*.sh; do
  for flag in --help -h; do
    expect_usage "$script" '^Usage: ' env -C "$stub" PATH="$stub" /bin/bash "$script" "$flag"
  done
done
python=/usr/bin/python3
for script in "$root"/bench/*.py; do
  for flag in --help -h; do
    expect_usage "$script" '^[Uu]sage: ' "$python" "$script" "$flag"
  done
  # stdout a pipe whose read end is closed before the script writes: the write must fail.
  err=$("$python" - "$script" <<'EOF'
import os
import subprocess
import sys
r, w = os.pipe()
os.close(r)
run = subprocess.run([sys.executable, sys.argv[1], "--help"], stdout=w, stderr=subprocess.PIPE,
                     text=True)
sys.stdout.write(run.stderr)
EOF
  )
  if [ -n "$err" ]; then
    echo "FAIL: ${script#"$root"/} --help into a closed pipe printed:" >&2
    tail -n 3 <<< "$err" >&2
    failed=1
  fi
done
[ $failed -eq 0 ] && echo "test_script_help: every script answers --help and -h"
exit $failed

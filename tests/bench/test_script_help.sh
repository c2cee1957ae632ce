#!/usr/bin/env bash
# Every script of bench/ and scripts/ answers --help and -h with its usage (a line starting
# "Usage:") and exit code 0, without doing its work: the help must come before anything runs
# (scripts/test.sh would otherwise build and test, scripts/install-deps.sh install).
# Usage: test_script_help.sh REPO_ROOT
set -uo pipefail
root=${1:?usage: test_script_help.sh REPO_ROOT}
# A PATH with sed only (the help's one command): a script that went on to its work would fail on
# the first other command instead of doing it.
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
ln -s "$(command -v sed)" "$stub/sed"
failed=0
for script in "$root"/bench/*.sh "$root"/scripts/*.sh; do
  for flag in --help -h; do
    out=$(cd "$stub" && PATH=$stub /bin/bash "$script" "$flag" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q '^Usage: ' <<< "$out"; then
      echo "FAIL: ${script#"$root"/} $flag exited $rc; printed:" >&2
      head -n 5 <<< "$out" >&2
      failed=1
    fi
  done
done
[ $failed -eq 0 ] && echo "test_script_help: every script answers --help and -h"
exit $failed

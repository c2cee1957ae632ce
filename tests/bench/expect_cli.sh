# Sourced by the tests of bench/'s shell scripts (test_ab.sh, test_pack.sh): sets fail=0 and tmp
# (a directory removed on exit), and defines expect_cli.
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect_cli SCRIPT EXIT_CODE PATTERN ARGS...: runs `bash SCRIPT ARGS...` and, unless it exits
# with EXIT_CODE and PATTERN occurs in its output (stdout and stderr), prints a FAIL line and sets
# fail=1.
expect_cli() {
  local script=$1 want=$2 pattern=$3
  shift 3
  local text rc
  text=$(bash "$script" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" <<< "$text"; then
    echo "FAIL: $(basename "$script") $* -> exit $rc (want $want), output: $text"
    fail=1
  fi
}

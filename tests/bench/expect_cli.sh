# Sourced by the tests of bench/'s shell scripts and executables' command lines (test_ab.sh,
# test_pack.sh, test_tridiag_bench_cli.sh, ...): sets fail=0 and tmp (a directory removed on exit),
# and defines expect_cli and expect_exe.
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
# expect_exe EXE OUTPUT EXIT_CODE PATTERN ARGS...: runs `EXE ARGS...` and, unless it exits with
# EXIT_CODE and PATTERN occurs in its output, prints a FAIL line and sets fail=1; where EXIT_CODE
# is not 0, also unless it left OUTPUT unwritten (and removes what it wrote).
expect_exe() {
  local exe=$1 output=$2 want=$3 pattern=$4
  shift 4
  local text rc
  text=$("$exe" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" <<< "$text"; then
    echo "FAIL: $(basename "$exe") $* -> exit $rc (want $want), output: $text"
    fail=1
  fi
  if [ "$want" -ne 0 ] && [ -e "$output" ]; then
    echo "FAIL: $(basename "$exe") $* wrote $output"
    fail=1
    rm -f "$output"
  fi
}

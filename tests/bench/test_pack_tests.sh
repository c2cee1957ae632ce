#!/usr/bin/env bash
# bench/pack_tests.sh: --help exits 0; too few arguments, an unknown option, a bad --shards and a
# PACKDIR that is not a pack exit 2. Then runs on a stand-in pack (gtest-like scripts that print
# gtest's summary lines, a device_loop and a pscr): every run reported in summary.txt and logged,
# test_tridiag_cuda's shards each given their own GTEST_SHARD_INDEX, exit 0; one shard failing
# exits 1 with the failed test named in the summary while the other runs still report; --filter
# runs test_tridiag_cuda alone with that filter, in no more shards than it selects tests, and one
# that selects none (or a test_tridiag_cuda that cannot list its tests) exits 1; --sanitize runs
# the tests and device_loop under compute-sanitizer (a stand-in) and not the example, names in
# the summary the test and the report of a run it fails, and exits 1 where there is none, 2 for an
# unknown tool; stopped by timeout, it names the run that had not finished and the test it was
# in; a pack without test_tridiag_cuda exits 1.
# Usage: test_pack_tests.sh PATH/TO/bench/pack_tests.sh
set -u
script=$1
# shellcheck source=expect_cli.sh
source "$(dirname "$0")/expect_cli.sh"
expect() { expect_cli "$script" "$@"; }  # EXIT_CODE PATTERN ARGS...
# expect_summary OUTDIR WHAT LINE...: OUTDIR/summary.txt holds every LINE (WHAT names the case).
expect_summary() {
  local summary line what=$2
  summary=$(cat "$1/summary.txt" 2> /dev/null)
  shift 2
  for line in "$@"; do
    if ! grep -qF -- "$line" <<< "$summary"; then
      echo "FAIL: $what: summary.txt lacks '$line': $summary"
      fail=1
    fi
  done
}
pack="$tmp/pack"
mkdir -p "$pack" "$tmp/notpack"
echo "abc1234" > "$pack/PACKED"
echo library > "$pack/libpscr.so.0"
cat > "$pack/test_tridiag_cuda" <<'EOS'
#!/usr/bin/env bash
if [ "${1:-}" = --gtest_list_tests ]; then  # four tests, two of them CudaTridiagTest/1.Two*
  [ -z "${LIST_FAILS:-}" ] || { echo "error while loading shared libraries" >&2; exit 127; }
  case "${2:-}" in
    --gtest_filter=Nothing*) ;;
    --gtest_filter=CudaTridiagTest/1.Two*) printf 'CudaTridiagTest/1.\n  TwoA\n  TwoB\n' ;;
    *) printf 'CudaTridiagTest/0.\n  A\n  B\nCudaTridiagTest/1.\n  TwoA\n  TwoB\n' ;;
  esac
  exit 0
fi
echo "shard ${GTEST_SHARD_INDEX:-none} of ${GTEST_TOTAL_SHARDS:-none} args $*"
if [ "${SLOW_SHARD:-}" = "${GTEST_SHARD_INDEX:-}" ]; then
  echo "[ RUN      ] CudaTridiagTest/0.Quick"
  echo "[       OK ] CudaTridiagTest/0.Quick (12 ms)"
  echo "[ RUN      ] CudaTridiagTest/0.Slow"
  sleep 30
fi
if [ "${RACE_SHARD:-}" = "${GTEST_SHARD_INDEX:-}" ]; then
  echo "========= COMPUTE-SANITIZER"
  echo "[ RUN      ] CudaTridiagTest/0.Clean"
  echo "[       OK ] CudaTridiagTest/0.Clean (5 ms)"
  echo "[ RUN      ] CudaTridiagTest/1.Racy"
  echo "========= Error: Race reported between Write access at 0x150 in kernel_a(double*)"
  echo "=========     and Read access at 0x178 in kernel_a(double*) [4 hazards]"
  echo "[       OK ] CudaTridiagTest/1.Racy (9 ms)"
  echo "[  PASSED  ] 2 tests."
  echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
  exit 86
fi
if [ "${FAIL_SHARD:-}" = "${GTEST_SHARD_INDEX:-}" ]; then
  echo "[  FAILED  ] CudaTridiagTest/1.Broken, where TypeParam = complex"
  echo "[  PASSED  ] 3 tests."
  echo "[  FAILED  ] 1 test, listed below:"
  echo "[  FAILED  ] CudaTridiagTest/1.Broken, where TypeParam = complex"
  exit 1
fi
echo "[  PASSED  ] 4 tests."
EOS
cat > "$pack/test_solver_gpu" <<'EOS'
#!/usr/bin/env bash
echo "[  PASSED  ] 14 tests."
EOS
cat > "$pack/device_loop" <<'EOS'
#!/usr/bin/env bash
echo "  20 steps, $1, worst residual 4.10e-12"
EOS
cat > "$pack/pscr" <<'EOS'
#!/usr/bin/env bash
case "$1" in
  solve) [ -f "$2" ] && echo solved > "$4" ;;
  residual) [ -f "$3" ] && echo "  0  2.027e-14        2.431e-13" ;;
  *) exit 2 ;;
esac
EOS
chmod +x "$pack"/test_* "$pack/device_loop" "$pack/pscr"

expect 0 "Usage: bench/pack_tests.sh PACKDIR OUTDIR" --help
expect 2 "usage:" "$pack"
expect 2 "unknown argument '--bogus'" "$pack" "$tmp/out" --bogus
expect 2 "--shards must be a positive integer, got '0'" "$pack" "$tmp/out" --shards 0
expect 2 "is not a pack" "$tmp/notpack" "$tmp/out"
if [ -e "$tmp/out" ]; then
  echo "FAIL: a rejected command line created $tmp/out"
  fail=1
fi

expect 0 "every run passed" "$pack" "$tmp/out" --shards 3
expect_summary "$tmp/out" "every run passed" "pack: abc1234" \
  "test_tridiag_cuda shard 1/3: ok (exit 0) PASSED: 4 tests." "test_tridiag_cuda shard 3/3: ok" \
  "test_solver_gpu: ok (exit 0) PASSED: 14 tests." \
  "device_loop 3d: ok (exit 0)   20 steps, 3d, worst residual 4.10e-12" \
  "example (pscr solve --backend gpu, pscr residual): ok (exit 0)   0  2.027e-14"
for i in 0 1 2; do
  if ! grep -q "^shard $i of 3 args $" "$tmp/out/test_tridiag_cuda-shard$i.log" 2> /dev/null; then
    echo "FAIL: shard $i's log: $(cat "$tmp/out/test_tridiag_cuda-shard$i.log" 2> /dev/null)"
    fail=1
  fi
done

FAIL_SHARD=1 expect 1 "some run failed" "$pack" "$tmp/out2" --shards 2
expect_summary "$tmp/out2" "after a failing shard" \
  "test_tridiag_cuda shard 2/2: FAILED (exit 1) PASSED: 3 tests. FAILED: 1 test," \
  "    [  FAILED  ] CudaTridiagTest/1.Broken, where TypeParam = complex" \
  "test_tridiag_cuda shard 1/2: ok" "test_solver_gpu: ok" "device_loop 2d: ok"

expect 0 "every run passed" "$pack" "$tmp/out3" --filter 'CudaTridiagTest/1.*' --shards 1
if ! grep -qF "args --gtest_filter=CudaTridiagTest/1.*" "$tmp/out3/test_tridiag_cuda-shard0.log" ||
    [ -e "$tmp/out3/test_solver_gpu.log" ] || [ -e "$tmp/out3/device_loop-2d.log" ]; then
  echo "FAIL: --filter ran $(ls "$tmp/out3" | tr '\n' ' ')"
  fail=1
fi

# No more shards than the filter selects tests (a shard of none fails under compute-sanitizer); a
# filter that selects none exits 1.
expect 0 "test_tridiag_cuda shard 2/2: ok" "$pack" "$tmp/out10" --filter 'CudaTridiagTest/1.Two*'
if [ -e "$tmp/out10/test_tridiag_cuda-shard2.log" ]; then
  echo "FAIL: a filter of two tests ran $(ls "$tmp/out10" | tr '\n' ' ')"
  fail=1
fi
expect 1 "selects no test of test_tridiag_cuda" "$pack" "$tmp/out11" \
  --filter 'Nothing*'
LIST_FAILS=1 expect 1 "gtest_list_tests failed: error while loading shared libraries" "$pack" \
  "$tmp/out12"

# --sanitize: a bad tool exits 2; every test executable and device_loop run through
# compute-sanitizer (a stand-in that logs its arguments and runs the rest), the example not at all;
# no compute-sanitizer exits 1.
expect 2 "--sanitize expects memcheck, racecheck, synccheck or initcheck, got 'asan'" \
  "$pack" "$tmp/out5" --sanitize asan
mkdir -p "$tmp/bin"
cat > "$tmp/bin/compute-sanitizer" <<'EOS'
#!/usr/bin/env bash
echo "sanitizer: $*"
while [ $# -gt 0 ]; do
  case "$1" in
    --tool | --error-exitcode | --print-limit | --leak-check) shift 2 ;;
    *) break ;;
  esac
done
exec "$@"
EOS
chmod +x "$tmp/bin/compute-sanitizer"
PATH="$tmp/bin:$PATH" expect 0 "every run passed" "$pack" "$tmp/out5" --sanitize memcheck --shards 1
checked="sanitizer: --tool memcheck --error-exitcode 86 --print-limit 20 --leak-check full"
for log in test_tridiag_cuda-shard0 test_solver_gpu device_loop-2d device_loop-3d; do
  if ! grep -qF "$checked" "$tmp/out5/$log.log" 2> /dev/null; then
    echo "FAIL: --sanitize memcheck: $log.log: $(head -n 1 "$tmp/out5/$log.log" 2> /dev/null)"
    fail=1
  fi
done
if [ -e "$tmp/out5/example.log" ] ||
    ! grep -qF "(under compute-sanitizer --tool memcheck)" "$tmp/out5/summary.txt"; then
  echo "FAIL: --sanitize ran the example or did not say so: $(cat "$tmp/out5/summary.txt")"
  fail=1
fi
PATH="$tmp/bin:$PATH" expect 0 "every run passed" "$pack" "$tmp/out6" --sanitize racecheck --shards 1
if ! grep -qF "sanitizer: --tool racecheck --error-exitcode 86 --print-limit 20 $pack" \
    "$tmp/out6/test_solver_gpu.log"; then
  echo "FAIL: --sanitize racecheck: $(head -n 1 "$tmp/out6/test_solver_gpu.log")"
  fail=1
fi
# A shard the sanitizer fails: the summary names the test running at its first report and that
# report's lines, not its banner or summary.
RACE_SHARD=0 PATH="$tmp/bin:$PATH" expect 1 "some run failed" "$pack" "$tmp/out9" \
  --filter 'CudaTridiagTest/*' --sanitize racecheck --shards 1
expect_summary "$tmp/out9" "a racecheck error" \
  "test_tridiag_cuda shard 1/1: FAILED (exit 86) PASSED: 2 tests." "    in CudaTridiagTest/1.Racy:" \
  "    ========= Error: Race reported between Write access at 0x150 in kernel_a(double*)" \
  "    =========     and Read access at 0x178 in kernel_a(double*) [4 hazards]"
if grep -qE "COMPUTE-SANITIZER$|RACECHECK SUMMARY|Clean" "$tmp/out9/summary.txt"; then
  echo "FAIL: a racecheck error: the summary holds the banner, summary or a clean test:" \
    "$(cat "$tmp/out9/summary.txt")"
  fail=1
fi
if [ ! -e /usr/local/cuda/bin/compute-sanitizer ]; then  # the fallback where PATH has none
  PATH=/usr/bin:/bin expect 1 "compute-sanitizer not found" "$pack" "$tmp/out7" --sanitize memcheck
fi

# Stopped by timeout's SIGTERM while a shard is in a slow test: that shard named as stopped, with
# the tests it finished and the one it started, the shard that finished reported as usual, exit 143
# (timeout itself exits 124).
start=$(date +%s)
text=$(SLOW_SHARD=0 timeout 3 bash "$script" "$pack" "$tmp/out8" --filter 'CudaTridiagTest/0.*' \
  --shards 2 2>&1)
rc=$?
stopped="STOPPED before it finished (gtest tests done: 1; the last started: CudaTridiagTest/0.Slow)"
for line in "test_tridiag_cuda shard 2/2: ok" "test_tridiag_cuda shard 1/2: $stopped"; do
  if [ "$rc" -ne 124 ] || ! grep -qF -- "$line" <<< "$text" ||
      ! grep -qF -- "$line" "$tmp/out8/summary.txt" 2> /dev/null; then
    echo "FAIL: stopped by timeout -> exit $rc (want 124), no '$line' in: $text"
    fail=1
  fi
done
if [ $(($(date +%s) - start)) -gt 20 ]; then
  echo "FAIL: stopped by timeout, it still waited for the slow shard"
  fail=1
fi

rm "$pack/test_tridiag_cuda"
expect 1 "the pack has no test_tridiag_cuda" "$pack" "$tmp/out4"
exit $fail

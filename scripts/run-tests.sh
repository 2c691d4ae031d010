#!/usr/bin/env bash
# run-tests.sh - runs each cmocka test executable given as an argument, with a time limit, and
# adds up their results. A binary that crashes or times out before printing its summary counts
# as one failure. Ends with the line "N passed, N failed"; exits 1 if anything failed.
set -u
limit=${VTA_TEST_TIMEOUT:-600}
passed=0; failed=0; bad=()
export CMOCKA_MESSAGE_OUTPUT=stdout
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "$@"; do
  name=${t#build/san/}
  start=$(date +%s.%N)
  out=$(timeout --kill-after=10 "$limit" "$t" 2>&1); rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  p=${p:-0}; f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -ne 0 ]; then
    bad+=("$name")
    printf '%s\n' "$out" | tail -40
    printf 'FAIL %-40s %4d passed %4d failed  (exit %d, %ss)\n' "$name" "$p" "$f" "$rc" "$secs"
  else
    printf 'ok   %-40s %4d passed  (%ss)\n' "$name" "$p" "$secs"
  fi
done
[ ${#bad[@]} -eq 0 ] || printf 'failed: %s\n' "${bad[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

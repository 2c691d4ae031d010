#!/usr/bin/env bash
# run-tests.sh - runs each cmocka test executable given as an argument, with a time limit, and
# adds up their results. A binary that crashes, times out or exits without printing cmocka's
# summary ("[==========] N test(s) run.") counts as one failure, so a test cannot pass by not
# running. Skipped tests (cmocka's skip()) are counted and listed by name. Ends with the line
# "N passed, N failed, N skipped"; exits 1 if anything failed.
# The whole output of a failing binary is kept in $VTA_BUILD/test-logs/<binary>.log (the path is
# printed), and the messages of each failed test (cmocka's lines between "[ RUN ]" and
# "[ FAILED ]") are printed before the tail, so a failure in a throw-away machine keeps its cause.
set -u
# (900 s: the Slurm sweep test runs yosys and took 438-700 s on a machine shared by many builds)
limit=${VTA_TEST_TIMEOUT:-900}
passed=0; failed=0; skipped=0; bad=(); skipped_names=()
logdir=${VTA_BUILD:-build}/test-logs
rm -rf "$logdir"
export CMOCKA_MESSAGE_OUTPUT=stdout
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "$@"; do
  name=${t#build/san/}
  start=$(date +%s.%N)
  out=$(timeout --kill-after=10 "$limit" "$t" 2>&1); rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  # A binary may run several cmocka groups, each with its own summary: add them all up.
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{n+=$1} END {print n+0}')
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{n+=$1} END {print n+0}')
  s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{n+=$1} END {print n+0}')
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  why=""
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if ! printf '%s\n' "$out" | grep -q '^\[==========\] [0-9]* test(s) run\.'; then
    [ "$f" -eq 0 ] && f=1
    why="no cmocka summary, "
  fi
  if [ "$s" -gt 0 ]; then
    while IFS= read -r t; do skipped_names+=("$name:$t"); done < <(printf '%s\n' "$out" |
      sed -n 's/^\[  SKIPPED \] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' | sort -u)
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -ne 0 ]; then
    bad+=("$name")
    # The message of every failed test: its block from "[ RUN ]" to "[ FAILED ]", at most the
    # first 60 and last 20 lines of each.
    printf '%s\n' "$out" | awk '
      /^\[ RUN      \] / { n = 0; name = $4; next }
      /^\[  FAILED  \] [A-Za-z_]/ && $4 == name {
        print "--- " name " ---"
        for (i = 1; i <= n; i++) if (i <= 60 || i > n - 20) print buf[i]; else if (i == 61) print "[...]"
        n = 0; name = ""; next }
      name != "" { buf[++n] = $0 }'
    echo "--- last lines ---"
    printf '%s\n' "$out" | tail -40
    log="$logdir/$(printf '%s' "$name" | tr '/' '_').log"
    if mkdir -p "$logdir" && printf '%s\n' "$out" > "$log"; then echo "(whole output: $log)"; fi
    printf 'FAIL %-40s %4d passed %4d failed %4d skipped  (%sexit %d, %ss)\n' "$name" "$p" "$f" "$s" \
      "$why" "$rc" "$secs"
  elif [ "$s" -ne 0 ]; then
    printf 'ok   %-40s %4d passed %4d skipped  (%ss)\n' "$name" "$p" "$s" "$secs"
  else
    printf 'ok   %-40s %4d passed  (%ss)\n' "$name" "$p" "$secs"
  fi
done
[ ${#bad[@]} -eq 0 ] || printf 'failed: %s\n' "${bad[*]}"
[ ${#skipped_names[@]} -eq 0 ] || printf 'skipped: %s\n' "${skipped_names[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# run-tests.sh - runs each cmocka test executable given as an argument, with a time limit, and
# adds up their results. A binary that crashes, times out or exits without printing cmocka's
# summary ("[==========] N test(s) run.") counts as one failure, so a test cannot pass by not
# running. Skipped tests (cmocka's skip()) are counted and listed by name. Ends with the line
# "N passed, N failed, N skipped"; exits 1 if anything failed.
# The whole output of a failing binary is kept in $VTA_BUILD/test-logs/<binary>.log (the path is
# printed), and the messages of each failed test (cmocka's lines between "[ RUN ]" and
# "[ FAILED ]") are printed before the tail, so a failure in a throw-away machine keeps its cause.
#
# Binaries run $VTA_TEST_JOBS at a time (default: the number of processors); each one's lines are
# printed when it ends. The longest start first: by the seconds each took in the last run here
# ($VTA_BUILD/test-times), or on a first run the few known to take minutes. Most of the time
# goes to single-threaded work (yosys, a Verilator model, a sanitized compiler), so two at a time
# on two cores take about half as long as one after another. Every test makes its own temporary
# folder and the local Slurm clusters choose free ports, so they do not meet.
set -u
# (900 s: the Slurm sweep test runs yosys and took 438-700 s on a machine shared by many builds)
limit=${VTA_TEST_TIMEOUT:-900}
jobs=${VTA_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests.sh: VTA_TEST_JOBS must be a positive whole number, not '$jobs'" >&2; exit 2 ;; esac
passed=0; failed=0; skipped=0; bad=(); skipped_names=()
logdir=${VTA_BUILD:-build}/test-logs
rm -rf "$logdir"
export CMOCKA_MESSAGE_OUTPUT=stdout
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
work=$(mktemp -d /tmp/vta-run-tests.XXXXXX) || exit 1
times=${VTA_BUILD:-build}/test-times
declare -A index_of=() start_of=()  # index_of: the running binaries by PID
# timeout(1) puts each binary in its own process group, so ^C reaches only this script: the
# running binaries are stopped here (timeout passes the signal on to its binary).
stop_all() {
  local p
  for p in "${!index_of[@]}"; do kill "$p" 2>/dev/null; done
  wait
  rm -rf "$work"
  exit 130
}
trap stop_all INT TERM

# report I BINARY RC SECS: counts one finished binary and prints its line (and a failure's
# messages).
report() {
  local name=${2#build/san/} rc=$3 secs=$4 out p f s why log
  out=$(cat "$work/$1.out")
  printf '%s %s\n' "$secs" "$name" >> "$work/times"
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
    while IFS= read -r n; do skipped_names+=("$name:$n"); done < <(printf '%s\n' "$out" |
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
}

# The order: the longest first (the last run's seconds; on a first run the known long ones).
declare -A est=()
for t in tests/hw/test_xclbin_flow tests/host/test_sweep tests/compiler/test_gen_resnet \
  tests/host/test_bench_conv; do est[$t]=100; done
if [ -r "$times" ]; then
  while read -r secs name; do est[$name]=$secs; done < "$times"
fi
order=()
while read -r _ i; do order+=("$i"); done < <(
  i=0; for t in "$@"; do printf '%s %d\n' "${est[${t#build/san/}]:-0}" "$i"; i=$((i + 1)); done |
    sort -s -k1,1 -g -r)
args=("$@")
next=0
while [ "$next" -lt ${#order[@]} ] || [ ${#index_of[@]} -gt 0 ]; do
  while [ "$next" -lt ${#order[@]} ] && [ ${#index_of[@]} -lt "$jobs" ]; do
    i=${order[$next]}; next=$((next + 1))
    start_of[$i]=$(date +%s.%N)
    timeout --kill-after=10 "$limit" "${args[$i]}" > "$work/$i.out" 2>&1 < /dev/null &
    index_of[$!]=$i
  done
  done_pid=
  wait -n -p done_pid; rc=$?
  [ -n "$done_pid" ] || continue
  i=${index_of[$done_pid]}
  unset "index_of[$done_pid]"
  report "$i" "${args[$i]}" "$rc" "$(printf '%.1f' "$(echo "$(date +%s.%N) - ${start_of[$i]}" | bc)")"
done
# (the order of the next run; kept only where the build folder exists)
{ sort -g -r "$work/times" > "$times.tmp" && mv "$times.tmp" "$times"; } 2>/dev/null
rm -rf "$work"
[ ${#bad[@]} -eq 0 ] || printf 'failed: %s\n' "${bad[*]}"
[ ${#skipped_names[@]} -eq 0 ] || printf 'skipped: %s\n' "${skipped_names[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

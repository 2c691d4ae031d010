#!/usr/bin/env bash
# fuzz.sh DIR SECONDS NAME... - runs each libFuzzer harness DIR/bin/fuzz_NAME in turn for SECONDS
# (niced), on its working corpus DIR/corpus/NAME (new inputs go there), the committed regression
# corpus tests/fuzz/corpus/NAME and the seeds DIR/seeds/NAME, with tests/fuzz/NAME.dict when
# there is one. Crashes, leaks, timeouts and out-of-memory inputs are written to
# DIR/crashes/NAME/ (counted when written by this run); the log is DIR/logs/NAME.log. Prints
# one JSON line per harness:
#   {"harness":NAME,"seconds":S (as long as it ran),"runs":N,"exec_per_sec":E,"edges":C,"features":F,"crashes":K}
# and exits 1 if any harness found something (copy the reproducer into tests/fuzz/crashes/NAME/
# once fixed, so `make test` replays it).
set -u
dir=$1 secs=$2
shift 2
status=0
for name in "$@"; do
  bin=$dir/bin/fuzz_$name
  [ -x "$bin" ] || { echo "fuzz.sh: $bin is not built" >&2; exit 1; }
  mkdir -p "$dir/corpus/$name" "$dir/crashes/$name" "$dir/logs" "$dir/seeds/$name" "tests/fuzz/corpus/$name"
  dict=()
  [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  log=$dir/logs/$name.log
  stamp=$dir/logs/$name.start
  touch "$stamp"
  t0=$(date +%s)
  # -timeout: one input may take at most 60 s of wall time (ONNX compiles include LLVM code
  # generation; on a machine shared by many builds an input taking 0.5 s of CPU took 27 s);
  # -rss_limit_mb: a tensor may be as large as VTA_LIMIT_TENSOR_BYTES (2 GiB).
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    nice -n 10 "$bin" -max_total_time="$secs" -timeout=60 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$dir/crashes/$name/" "${dict[@]}" \
    "$dir/corpus/$name" "tests/fuzz/corpus/$name" "$dir/seeds/$name" >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - t0 ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  # (slow-unit-* files are inputs slower than 10 s, kept for a look, not failures)
  crashes=$(find "$dir/crashes/$name" -type f -newer "$stamp" ! -name 'slow-unit-*' | wc -l)
  printf '{"harness":"%s","seconds":%s,"runs":%s,"exec_per_sec":%s,"edges":%s,"features":%s,"crashes":%s,"exit":%d}\n' \
    "$name" "$took" "${runs:-null}" "${eps:-null}" "${cov:-null}" "${ft:-null}" "$crashes" "$rc"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    grep -m1 -A12 'ERROR: \|==ERROR\|runtime error\|fuzz property failed' "$log" >&2
  fi
done
exit $status

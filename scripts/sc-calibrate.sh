#!/usr/bin/env bash
# sc-calibrate.sh - the calibration of the SystemC model (docs/sc.md): every benchmark on the rtl
# and sc backends, back to back in one process (`vta bench ... --backend rtl,sc`), on the
# default configuration and four others, plus the two real models of `make run` and random
# concurrent programs; writes the JSON lines and prints the Markdown table of docs/sc.md.
#
#   scripts/sc-calibrate.sh [VTA] [OUTDIR]      defaults: build/bin/vta, build/sc-calib
#
# Needs the Verilator model of every configuration (make rtl-model RTL_CONFIG=...; this script
# builds the missing ones) and the models of `make run` (scripts/fetch-models.sh). Slow: about
# ten minutes on an idle machine, most of it rtl. SC_CALIB_CONFIGS overrides the configurations,
# SC_CALIB_PROGRAMS the number of random programs per configuration (default 2000).
set -eu
cd "$(dirname "$0")/.."
vta=${1:-build/bin/vta}
out=${2:-build/sc-calib}
build=$(dirname "$(dirname "$vta")")
mkdir -p "$out"
configs=${SC_CALIB_CONFIGS:-"configs/vta_default.json configs/batch4.json configs/block32.json sim/sc/configs/bus256.json sim/sc/configs/latency128.json"}
programs=${SC_CALIB_PROGRAMS:-2000}
jl="$out/calib.jsonl"
: >"$jl"
scripts/fetch-models.sh >/dev/null
for c in $configs; do
  make --no-print-directory BUILD="$build" rtl-model RTL_CONFIG="$c" >/dev/null
  name=$(basename "$c" .json)
  echo "== $name" >&2
  for b in "gemm" "alu" "conv2d" "resnet18"; do
    "$vta" bench $b --config "$c" --backend rtl,sc | grep '"compare"' |
      sed "s/^{/{\"config_file\":\"$name\",/" >>"$jl"
  done
  # The two real models of `make run`, compiled for this configuration.
  for m in ppocr_cls:--shape=1,3,48,192:text blazeface::astronaut; do
    IFS=: read -r model shape pic <<<"$m"
    "$vta" compile ".cache/models/$model.onnx" $shape --accel --config "$c" \
      -o "$out/${model}_$name.vtab" >/dev/null 2>&1
    line() { "$vta" run "$out/${model}_$name.vtab" --input "tests/data/models/$pic.npy" \
      --backend "$1" | grep '^accelerator'; }
    r=$(line rtl)
    s=$(line sc)
    cyc() { sed -n 's/.* \([0-9]*\) cycles.*/\1/p' <<<"$1"; }
    sec() { sed -n 's/.* \([0-9.]*\) s in the backend.s run calls.*/\1/p' <<<"$1"; }
    printf '{"config_file":"%s","bench":"model","layer":"%s","rtl_cycles":%s,"sc_cycles":%s,"rtl_seconds":%s,"sc_seconds":%s}\n' \
      "$name" "$model" "$(cyc "$r")" "$(cyc "$s")" "$(sec "$r")" "$(sec "$s")" >>"$jl"
  done
  # Random concurrent programs (sim/gen/conc.c) on both backends.
  VTA_SC_PROGRAMS=$programs VTA_SC_ONLY_CONFIG="$c" "$build/san/tests/sim/test_sc" 2>/dev/null |
    sed -n 's/^RANDOM //p' | sed "s/^{/{\"config_file\":\"$name\",/" >>"$jl"
done
python3 scripts/sc-calib-table.py "$jl"

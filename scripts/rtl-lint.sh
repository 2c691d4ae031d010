#!/usr/bin/env bash
# rtl-lint.sh SVGEN OUTROOT CONFIG.json... - `verilator --lint-only -Wall` of hw/ for every
# configuration given, plus the default configuration at every AXI bus width from 32 to 1024
# bits, so that every shape isa/ accepts is known to elaborate cleanly. The only waivers are in
# hw/lint/verilator.vlt.
set -eu
command -v verilator >/dev/null || { echo "rtl-lint.sh: verilator was not found (Debian package verilator); run scripts/deps.sh as root" >&2; exit 1; }
svgen=$1 root=$2
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/lint"
configs=("$@")
for bus in 5 6 7 8 9 10; do
  f="$root/lint/bus$bus.json"
  sed -e "s/\"LOG_BUS_WIDTH\": *[0-9]*/\"LOG_BUS_WIDTH\": $bus/" "$repo/configs/vta_default.json" > "$f"
  configs+=("$f")
done
fail=0
for c in "${configs[@]}"; do
  dir=$("$svgen" "$c" "$root")
  if verilator --lint-only -Wall "$repo/hw/lint/verilator.vlt" "$dir/vta_pkg.sv" "$repo"/hw/rtl/*.sv "$repo"/hw/vitis/*.sv \
       --top-module vta > "$dir/lint.log" 2>&1; then
    echo "lint ok   $(basename "$dir")  ($c)"
  else
    echo "lint FAIL $(basename "$dir")  ($c)"
    grep -v '^ ' "$dir/lint.log" | head -20
    fail=1
  fi
done
exit $fail

#!/usr/bin/env bash
# rtl-model.sh SVGEN CONFIG.json OUTROOT - builds the Verilator model of one configuration into
# OUTROOT/<model key>/libvta_rtl_model.so (called by sim/rtl/build.mk; the rules live there).
#
# Flags, chosen by measurement on the default configuration (see docs/hw.md): -O3 with
# --x-assign fast / --x-initial fast and OPT_FAST=-O3 give the fastest model; one thread,
# because the design is small and threads cost more in synchronisation than they gain on 2 cores.
set -eu
command -v verilator >/dev/null || { echo "rtl-model.sh: verilator was not found (Debian package verilator); run scripts/deps.sh as root" >&2; exit 1; }
svgen=$1 config=$2 root=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$svgen" "$config" "$root")
key=$(basename "$dir")
dir=$(cd "$dir" && pwd)
jobs=${RTL_JOBS:-2}
cov=
if [ "${RTL_COVERAGE:-0}" = 1 ]; then cov="--coverage-line --coverage-toggle"; fi
# shellcheck disable=SC2086
verilator --cc --exe --build -j "$jobs" $cov \
  -O3 --x-assign fast --x-initial fast --assert --trace-fst --trace-structs \
  -Wno-fatal -Wno-lint -Wno-style \
  --top-module vta_top --prefix Vvta_top \
  --Mdir "$dir/obj" \
  -CFLAGS "-fPIC -fvisibility=hidden -O2 -DVL_USER_STOP -DVTA_RTL_MODEL_KEY='\"$key\"' -I$repo -I$repo/include" \
  -LDFLAGS "-shared -Wl,-Bsymbolic -lz" \
  -MAKEFLAGS "OPT_FAST=-O3 OPT_SLOW=-O1" \
  -o "$dir/libvta_rtl_model.so.tmp" \
  "$repo/sim/rtl/trace.vlt" "$dir/vta_pkg.sv" "$repo"/hw/rtl/*.sv "$repo/sim/rtl/harness.cpp" > "$dir/build.log" 2>&1 || {
  tail -30 "$dir/build.log" >&2
  echo "rtl-model.sh: Verilator build of $key failed (full log: $dir/build.log)" >&2
  exit 1
}
mv "$dir/libvta_rtl_model.so.tmp" "$dir/libvta_rtl_model.so"
echo "$dir/libvta_rtl_model.so"

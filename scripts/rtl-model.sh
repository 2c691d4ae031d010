#!/usr/bin/env bash
# rtl-model.sh SVGEN CONFIG.json OUTROOT - builds the Verilator model of one configuration into
# OUTROOT/<model key>/libvta_rtl_model.so (called by sim/rtl/build.mk; the rules live there).
#
# Flags, chosen by measurement on the default configuration (see docs/hw.md): -O3 with
# --x-assign fast / --x-initial fast and OPT_FAST=-O3 give the fastest model; one thread,
# because the design is small and threads cost more in synchronisation than they gain on 2 cores.
# The C++ is compiled by clang++-14: on the default configuration its model builds in about
# three quarters of g++'s time (39 s against 53 s, 48 s against 66 s; two jobs) and runs as
# fast (paired runs 0.91-1.08, median 1.02).
set -eu
command -v verilator >/dev/null || { echo "rtl-model.sh: verilator was not found (Debian package verilator); run scripts/deps.sh as root" >&2; exit 1; }
cxx=${RTL_CXX:-clang++-14}
command -v "$cxx" >/dev/null || { echo "rtl-model.sh: $cxx was not found (Debian package clang-14); run scripts/deps.sh as root" >&2; exit 1; }
svgen=$1 config=$2 root=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$svgen" "$config" "$root")
key=$(basename "$dir")
dir=$(cd "$dir" && pwd)
jobs=${RTL_JOBS:-2}
cov=
opt_c=-O2 opt_fast=-O3 opt_slow=-O1 opt_global=-Os
if [ "${RTL_COVERAGE:-0}" = 1 ]; then
  # Coverage models: the instrumented C++ is several times larger and one __Slow file took more
  # than 55 minutes at -O1 under a load of 20; the models only run coverage regressions, so the
  # C++ is compiled without optimisation (build time matters more than run time here).
  cov="--coverage-line --coverage-toggle"
  opt_c=-O0 opt_fast=-O0 opt_slow=-O0 opt_global=-O0
fi
# shellcheck disable=SC2086
verilator --cc --exe --build -j "$jobs" $cov \
  -O3 --x-assign fast --x-initial fast --assert --trace-fst --trace-structs \
  -Wno-fatal -Wno-lint -Wno-style \
  --top-module vta_top --prefix Vvta_top \
  --Mdir "$dir/obj" \
  -CFLAGS "-fPIC -fvisibility=hidden $opt_c -DVL_USER_STOP -DVTA_RTL_MODEL_KEY='\"$key\"' -I$repo -I$repo/include" \
  -LDFLAGS "-shared -Wl,-Bsymbolic -lz" \
  -MAKEFLAGS "CXX=$cxx LINK=$cxx OPT_FAST=$opt_fast OPT_SLOW=$opt_slow OPT_GLOBAL=$opt_global" \
  -o "$dir/libvta_rtl_model.so.tmp" \
  "$repo/sim/rtl/trace.vlt" "$dir/vta_pkg.sv" "$repo"/hw/rtl/*.sv "$repo/sim/rtl/harness.cpp" > "$dir/build.log" 2>&1 || {
  tail -30 "$dir/build.log" >&2
  echo "rtl-model.sh: Verilator build of $key failed (full log: $dir/build.log)" >&2
  exit 1
}
mv "$dir/libvta_rtl_model.so.tmp" "$dir/libvta_rtl_model.so"
echo "$dir/libvta_rtl_model.so"

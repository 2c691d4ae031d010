#!/usr/bin/env bash
# rtl-synth.sh SVGEN CONFIG.json OUTROOT - synthesis check of hw/ with yosys synth_xilinx on one
# (small) configuration: the design must elaborate, synthesize, contain no latch and pass
# yosys's `check`.
#
# The sources are rewritten for Debian's yosys by rtl-yosys-src.sh.
set -eu
command -v yosys >/dev/null || { echo "rtl-synth.sh: yosys was not found (Debian package yosys); run scripts/deps.sh as root" >&2; exit 1; }
svgen=$1 config=$2 root=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$svgen" "$config" "$root")
out="$dir/synth"
srcs=$("$repo/scripts/rtl-yosys-src.sh" "$dir" "$out/src")
yosys -q -l "$out/yosys.log" -p "
  read_verilog -sv $srcs
  hierarchy -check -top vta_top
  proc
  select -assert-none t:\$dlatch t:\$_DLATCH_*
  synth_xilinx -top vta_top -flatten
  setattr -mod -unset keep_hierarchy
  flatten
  select -assert-none t:LDCE t:LDPE t:\$dlatch t:\$_DLATCH_*
  check -assert
  tee -o $out/stat.txt stat
" || { echo "rtl-synth.sh: synthesis check of $(basename "$dir") failed (log: $out/yosys.log)" >&2; exit 1; }
# yosys 0.23 reads some SystemVerilog (an unpacked array of a struct) with selects out of range
# and only warns: the netlist then differs from what Verilator simulates.
if grep -m1 'out of bounds' "$out/yosys.log" >&2; then
  echo "rtl-synth.sh: yosys read a select out of range (above; log: $out/yosys.log): the netlist would not be the RTL" >&2
  exit 1
fi
# It also reads an unpacked array of a packed struct assigned in a loop as one element with only
# a bit per element driven and the rest undriven (`check` only warns of it).
if grep -m1 'is used but has no driver' "$out/yosys.log" >&2; then
  echo "rtl-synth.sh: yosys left a wire undriven (above; log: $out/yosys.log): the netlist would not be the RTL" >&2
  exit 1
fi
echo "synth ok  $(basename "$dir")  ($config): $(grep -E 'Number of cells' "$out/stat.txt" | tail -1 | awk '{print $NF}') cells, no latches (report: $out/stat.txt)"

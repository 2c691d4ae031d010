#!/usr/bin/env bash
# rtl-resources.sh SVGEN CONFIG.json FAMILY OUT.json - FPGA resource estimate of the whole
# accelerator (vta_top) for one configuration: yosys synth_xilinx for a Xilinx family (xc7:
# 7-series such as the Zynq-7000; xcup: UltraScale+, with URAM inference; xcu: UltraScale),
# written as one JSON object to OUT.json (atomically):
#
#   {"model_key":"...","family":"xcup","lut":N,"ff":N,"dsp":N,"bram36":N,"uram":N,
#    "cells":N,"yosys_seconds":S,"yosys_version":"0.23"}
#
# lut counts logic LUTs plus the LUTs of distributed RAM and shift registers (RAM64M = 4, ...);
# bram36 counts RAMB36 as 1 and RAMB18 as 0.5. These are yosys's mapping before placement:
# Vivado's counts for the same design can differ by a few times (it optimises across the
# hierarchy, packs LUTs and infers memories differently), so they rank configurations against
# each other and flag ones that clearly do not fit; they are not a sign-off figure.
# Used by `vta sweep` (cached per model key) and usable on its own, e.g. for `make xclbin`.
set -eu
if [ $# -ne 4 ]; then
  echo "usage: rtl-resources.sh SVGEN CONFIG.json FAMILY OUT.json" >&2
  exit 2
fi
svgen=$1 config=$2 family=$3 outjson=$4
case $family in
  xc7|xcu) uram="" ;;
  xcup) uram="-uram" ;;
  *) echo "rtl-resources.sh: family '$family' is not one of xc7, xcu, xcup" >&2; exit 2 ;;
esac
command -v yosys >/dev/null || { echo "rtl-resources.sh: yosys was not found (Debian package yosys); run scripts/deps.sh as root" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/vta-resources.XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=$("$svgen" "$config" "$work") || { echo "rtl-resources.sh: $config: vta-svgen failed" >&2; exit 1; }
key=$(basename "$dir")
srcs=$("$repo/scripts/rtl-yosys-src.sh" "$dir" "$work/src")
start=$(date +%s.%N)
log=$outjson.yosys.log
if ! yosys -q -q -l "$log" -p "
  read_verilog -sv $srcs
  synth_xilinx -family $family -top vta_top -flatten -noiopad $uram
  tee -q -o $work/stat.txt stat
"; then
  echo "rtl-resources.sh: yosys synth_xilinx -family $family of $key failed (log: $log)" >&2
  exit 1
fi
secs=$(echo "$(date +%s.%N) - $start" | bc)
ver=$(yosys -V | awk '{print $2}')
awk -v key="$key" -v fam="$family" -v secs="$secs" -v ver="$ver" '
  $1 ~ /^LUT[1-6]$/ { lut += $2 }
  $1 == "RAM64M" || $1 == "RAM32M" || $1 == "RAM128X1D" || $1 == "RAM256X1S" || $1 == "RAM256X1D" { lut += 4 * $2 }
  $1 == "RAM32M16" || $1 == "RAM64M8" { lut += 8 * $2 }
  $1 == "RAM64X1D" || $1 == "RAM32X1D" || $1 == "RAM128X1S" { lut += 2 * $2 }
  $1 == "RAM64X1S" || $1 == "RAM32X1S" || $1 == "SRL16E" || $1 == "SRLC32E" { lut += $2 }
  $1 ~ /^FD[RSCP]E$/ { ff += $2 }
  $1 ~ /^DSP48E[12]$/ { dsp += $2 }
  $1 ~ /^RAMB36E[12]$/ { bram += $2 }
  $1 ~ /^RAMB18E[12]$/ { bram += 0.5 * $2 }
  $1 == "URAM288" { uram += $2 }
  /Number of cells:/ { cells = $NF }
  END {
    printf "{\"model_key\":\"%s\",\"family\":\"%s\",\"lut\":%d,\"ff\":%d,\"dsp\":%d,\"bram36\":%g,\"uram\":%d,\"cells\":%d,\"yosys_seconds\":%.1f,\"yosys_version\":\"%s\"}\n",
      key, fam, lut, ff, dsp, bram, uram, cells, secs, ver
  }' "$work/stat.txt" > "$outjson.tmp"
mv "$outjson.tmp" "$outjson"
cat "$outjson"

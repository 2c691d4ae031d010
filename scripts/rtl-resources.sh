#!/usr/bin/env bash
# rtl-resources.sh SVGEN CONFIG.json ESTIMATE OUT - the project's one FPGA resource estimate of
# the whole accelerator (vta_top) for one configuration: yosys synth_xilinx, the cell counts
# written as one JSON object (atomically) and printed. Used by `vta sweep` (one job per missing
# estimate) and `make xclbin` / `make resource-estimate` (scripts/xclbin-flow.sh, hw/build.mk).
#
#   ESTIMATE  xc7          7-series (Zynq-7000: xc7z020)
#             xcu          UltraScale (no URAM)
#             xcup         UltraScale+ with URAM inference (-uram): for parts that have URAM
#                          (xczu7ev, xck26, Alveo)
#             xcup-nouram  UltraScale+ without URAM: memories go to block RAM and LUT RAM, for
#                          parts that have none (xczu3eg, Ultra96)
#   OUT       the JSON file to write, or a folder ending in '/': OUT/ESTIMATE/<model key>.json
#             (the layout of `vta sweep`'s resource cache, so the two can share one)
#
#   {"model_key":"...","estimate":"xcup-nouram","family":"xcup","uram_inferred":false,
#    "lut":N,"lut_logic":N,"lut_ram":N,"ff":N,"dsp":N,"bram36":N.N,"bram36_blocks":N,
#    "bram18":N,"uram":N,"cells":N,"rtl_hash":"...","yosys_seconds":S,"yosys_version":"0.23"}
#
# lut = lut_logic (LUT1..LUT6; yosys' INV cells are left out, as Vivado folds inverters into the
# LUTs they drive) + lut_ram (distributed RAM and shift registers: RAM64M8, RAM32M16, RAM512X1S,
# RAM256X1D count 8; RAM64M, RAM32M, RAM128X1D, RAM256X1S 4; RAM64X1D, RAM32X1D, RAM128X1S 2;
# RAM64X1S, RAM32X1S, SRL16E, SRLC32E 1); bram36 = RAMB36 + RAMB18 / 2. These are yosys's
# mapping before placement: Vivado's counts for the same design can differ by a few times (it
# optimises across the hierarchy, packs LUTs and infers memories differently), so they rank
# configurations against each other and flag ones that clearly do not fit; they are not a
# sign-off figure.
#
# Reuse: an OUT that exists with the same rtl_hash (the generated package, hw/rtl/*.sv and the
# synthesis command) is printed again without running yosys ("reusing" on standard error).
# yosys's log is kept beside the JSON (OUT.yosys.log).
#
# rtl-resources.sh --hash SVGEN CONFIG.json ESTIMATE prints only the rtl_hash an estimate made
# now would carry (no yosys): how `vta sweep` tells a cached estimate of older RTL from a current one.
set -eu
me=rtl-resources.sh
hash_only=0
if [ "${1:-}" = --hash ] && [ $# -eq 4 ]; then
  hash_only=1
  set -- "$2" "$3" "$4" -
fi
if [ $# -ne 4 ]; then
  echo "usage: $me SVGEN CONFIG.json xc7|xcu|xcup|xcup-nouram OUT.json|OUTDIR/" >&2
  echo "       $me --hash SVGEN CONFIG.json xc7|xcu|xcup|xcup-nouram" >&2
  exit 2
fi
svgen=$1 config=$2 estimate=$3 out=$4
case $estimate in
  xc7|xcu) family=$estimate uram_opt="" ;;
  xcup) family=xcup uram_opt="-uram" ;;
  xcup-nouram) family=xcup uram_opt="" ;;
  *) echo "$me: estimate '$estimate' is not one of xc7, xcu, xcup, xcup-nouram" >&2; exit 2 ;;
esac
[ -f "$config" ] || { echo "$me: $config: no such configuration file" >&2; exit 2; }
[ -x "$svgen" ] || { echo "$me: $svgen: vta-svgen not found or not executable (make build/bin/vta-svgen)" >&2; exit 2; }
command -v yosys >/dev/null || { echo "$me: yosys was not found (Debian package yosys); run scripts/deps.sh as root" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/vta-resources.XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=$("$svgen" "$config" "$work") || { echo "$me: $config: vta-svgen failed" >&2; exit 1; }
key=$(basename "$dir")
case $out in
  */) out="$out$estimate/$key.json" ;;
esac
mkdir -p "$(dirname "$out")"
script="read_verilog -sv (sources)
hierarchy -check -top vta_top
synth_xilinx -family $family -top vta_top -flatten -noiopad $uram_opt
setattr -mod -unset keep_hierarchy
flatten
tee -q -o stat.txt stat"
hash=$( { cat "$dir/vta_pkg.sv" "$repo"/hw/rtl/*.sv; echo "$script"; } | sha256sum | cut -c1-16)
if [ $hash_only = 1 ]; then
  echo "$hash"
  exit 0
fi
if [ -f "$out" ] && grep -q "\"rtl_hash\":\"$hash\"" "$out"; then
  echo "$me: reusing the $estimate estimate of $key ($out)" >&2
  cat "$out"
  exit 0
fi
srcs=$("$repo/scripts/rtl-yosys-src.sh" "$dir" "$work/src")
start=$(date +%s.%N)
log=$out.yosys.log
if ! yosys -q -q -l "$log" -p "
  read_verilog -sv $srcs
  hierarchy -check -top vta_top
  synth_xilinx -family $family -top vta_top -flatten -noiopad $uram_opt
  setattr -mod -unset keep_hierarchy
  flatten
  tee -q -o $work/stat.txt stat
"; then
  echo "$me: yosys synth_xilinx -family $family of $key ($config) failed (log: $log)" >&2
  exit 1
fi
# yosys 0.23 reads an unpacked array of a packed struct assigned in a loop as one element with
# only a bit per element driven and the rest undriven, and some selects out of range: the
# counts would not be the RTL's.
if grep -m1 -e 'is used but has no driver' -e 'out of bounds' "$log" >&2; then
  echo "$me: yosys misread the RTL of $key ($config) (above; log: $log)" >&2
  exit 1
fi
secs=$(echo "$(date +%s.%N) - $start" | bc)
ver=$(yosys -V | awk '{print $2}')
# The cell counts of the flattened top (the last table of `stat`).
awk -v key="$key" -v est="$estimate" -v fam="$family" -v uopt="$uram_opt" -v secs="$secs" \
    -v ver="$ver" -v hash="$hash" '
  /Number of cells:/ { cells = $NF }
  NF == 2 && $2 ~ /^[0-9]+$/ { n[$1] = $2 }
  END {
    for (c = 1; c <= 6; c++) logic += n["LUT" c]
    ram = 8 * (n["RAM64M8"] + n["RAM32M16"] + n["RAM512X1S"] + n["RAM256X1D"]) \
        + 4 * (n["RAM64M"] + n["RAM32M"] + n["RAM128X1D"] + n["RAM256X1S"]) \
        + 2 * (n["RAM64X1D"] + n["RAM32X1D"] + n["RAM128X1S"]) \
        + n["RAM64X1S"] + n["RAM32X1S"] + n["SRL16E"] + n["SRLC32E"]
    ff = n["FDRE"] + n["FDSE"] + n["FDCE"] + n["FDPE"]
    dsp = n["DSP48E1"] + n["DSP48E2"]
    b36 = n["RAMB36E1"] + n["RAMB36E2"]
    b18 = n["RAMB18E1"] + n["RAMB18E2"]
    printf "{\"model_key\":\"%s\",\"estimate\":\"%s\",\"family\":\"%s\",\"uram_inferred\":%s,", key, est, fam, uopt == "" ? "false" : "true"
    printf "\"lut\":%d,\"lut_logic\":%d,\"lut_ram\":%d,\"ff\":%d,\"dsp\":%d,", logic + ram, logic, ram, ff, dsp
    printf "\"bram36\":%g,\"bram36_blocks\":%d,\"bram18\":%d,\"uram\":%d,\"cells\":%d,", b36 + b18 / 2, b36, b18, n["URAM288"], cells
    printf "\"rtl_hash\":\"%s\",\"yosys_seconds\":%.1f,\"yosys_version\":\"%s\"}\n", hash, secs, ver
  }' "$work/stat.txt" > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
cat "$out"

#!/usr/bin/env bash
# resource-estimate.sh SVGEN CONFIG.json OUTROOT FAMILY - a yosys `synth_xilinx` resource estimate
# of the accelerator of one configuration, printed as one JSON object (and cached).
#
#   FAMILY   xc7 (7-series, Zynq-7000) or xcup (UltraScale+: Alveo, Zynq UltraScale+; URAM
#            inference on)
#
# Output (one line, also written to OUTROOT/<model key>/estimate-<family>.json; yosys runs again
# only when the RTL or the package changed since its last report, estimate-<family>/stat.txt):
#   {"config":"<CONFIG.json>","model_key":"<key>","family":"xcup","lut":N,"lut_logic":N,
#    "lut_ram":N,"ff":N,"dsp":N,"bram36":N,"bram18":N,"bram36_equiv":N.N,"uram":N,"cells":N,
#    "tool":"yosys 0.23 synth_xilinx"}
#   lut = lut_logic (LUT1..LUT6; yosys' INV cells are left out, as Vivado folds inverters into the
#   LUTs they drive) + lut_ram (distributed RAM and shift registers in LUTs:
#   RAM64M8, RAM32M16, RAM512X1S, RAM256X1D count 8; RAM64M, RAM32M, RAM128X1D, RAM256X1S 4;
#   RAM64X1D, RAM32X1D, RAM128X1S 2; RAM64X1S, RAM32X1S, SRL16E, SRLC32E 1);
#   bram36_equiv = bram36 + bram18/2. These are estimates from yosys's mapping, not Vivado's:
#   Vivado packs and optimises differently (see docs/user-guide/deploy.md).
#
# Used by `make xclbin` (compared with the board's part there). It counts cells as
# scripts/rtl-resources.sh (`vta sweep`'s estimate) does; this one keeps yosys' report per model
# key under OUTROOT so that `make xclbin` for several boards synthesises once.
set -eu
command -v yosys >/dev/null || { echo "resource-estimate.sh: yosys was not found (Debian package yosys); run scripts/deps.sh as root" >&2; exit 1; }
[ $# -eq 4 ] || { echo "usage: resource-estimate.sh SVGEN CONFIG.json OUTROOT xc7|xcup" >&2; exit 2; }
svgen=$1 config=$2 root=$3 family=$4
case $family in
  xc7) fam_opts="" ;;
  xcup) fam_opts="-family xcup -uram" ;;
  *) echo "resource-estimate.sh: family '$family' is not xc7 or xcup" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$svgen" "$config" "$root")
key=$(basename "$dir")
out="$dir/estimate-$family"
json="$dir/estimate-$family.json"
# Reuse: yosys runs again only when the RTL or the package is newer than its last report; the
# JSON is always made from the report (so a change of the counting below costs no synthesis).
fresh=0
if [ -f "$out/stat.txt" ]; then
  fresh=1
  for f in "$dir/vta_pkg.sv" "$repo"/hw/rtl/*.sv; do
    [ "$f" -nt "$out/stat.txt" ] && fresh=0
  done
fi
if [ $fresh -eq 0 ]; then
  mkdir -p "$out"
  srcs=$("$repo/scripts/rtl-yosys-src.sh" "$dir" "$out/src")
  yosys -q -l "$out/yosys.log" -p "
    read_verilog -sv $srcs
    hierarchy -check -top vta_top
    synth_xilinx -top vta_top -flatten $fam_opts
    tee -o $out/stat.txt.tmp stat
  " >/dev/null 2>&1 || { echo "resource-estimate.sh: yosys failed on $key ($config; log: $out/yosys.log)" >&2; exit 1; }
  mv "$out/stat.txt.tmp" "$out/stat.txt"
fi
# The cell counts of the flattened top (the last table of `stat`).
count() { awk -v c="$1" '$1 == c { n = $2 } END { print n + 0 }' "$out/stat.txt"; }
lut_logic=0
for c in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do lut_logic=$((lut_logic + $(count $c))); done
lut_ram=$(( 8 * ($(count RAM64M8) + $(count RAM32M16) + $(count RAM512X1S) + $(count RAM256X1D)) \
          + 4 * ($(count RAM64M) + $(count RAM32M) + $(count RAM128X1D) + $(count RAM256X1S)) \
          + 2 * ($(count RAM64X1D) + $(count RAM32X1D) + $(count RAM128X1S)) \
          + $(count RAM64X1S) + $(count RAM32X1S) + $(count SRL16E) + $(count SRLC32E) ))
ff=0
for c in FDRE FDSE FDCE FDPE; do ff=$((ff + $(count $c))); done
dsp=$(( $(count DSP48E1) + $(count DSP48E2) ))
b36=$(( $(count RAMB36E1) + $(count RAMB36E2) ))
b18=$(( $(count RAMB18E1) + $(count RAMB18E2) ))
uram=$(count URAM288)
cells=$(awk '/Number of cells:/ { n = $NF } END { print n + 0 }' "$out/stat.txt")
printf '{"config":"%s","model_key":"%s","family":"%s","lut":%d,"lut_logic":%d,"lut_ram":%d,"ff":%d,"dsp":%d,"bram36":%d,"bram18":%d,"bram36_equiv":%s,"uram":%d,"cells":%d,"tool":"yosys %s synth_xilinx"}\n' \
  "$config" "$key" "$family" $((lut_logic + lut_ram)) $lut_logic $lut_ram $ff $dsp $b36 $b18 \
  "$(echo "scale=1; $b36 + $b18 / 2" | bc)" $uram $cells "$(yosys -V | awk '{print $2}')" > "$json.tmp"
mv "$json.tmp" "$json"
cat "$json"

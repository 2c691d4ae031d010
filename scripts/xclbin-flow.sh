#!/usr/bin/env bash
# xclbin-flow.sh BOARD CONFIG.json OUTDIR SVGEN XCLBIN_TOOL - `make xclbin`: from the RTL and a
# configuration to an xclbin for one board (hw/vitis/boards/BOARD.mk and BOARD.cfg). An empty
# CONFIG.json means the board's own (BOARD_CONFIG).
#
# First everything that needs no Xilinx tool, each file checked as it is written:
#   vta_pkg.sv        the RTL's parameter package (vta-svgen)
#   kernel.xml        Vitis' kernel description, generated from the register table (xmllint)
#   kernel_regs.tcl   the s_axi_control register map for Vivado's IP packager (tclsh: complete)
#   package_xo.tcl    the packaging script (tclsh: complete)
#   link.cfg          the board's v++ --link configuration plus the kernel clock (sections, the
#                     vta compute unit, m_axi_gmem on the board's memory)
#   lint              verilator --lint-only -Wall of the Vitis top level with the whole RTL
#   vta_meta.xclbin   a metadata-only xclbin of this board's memory banks (XRT noop loads it)
#   resources.json    yosys synth_xilinx estimate (scripts/rtl-resources.sh, the estimator
#                     `vta sweep` uses; URAM inferred when the board's part has URAM) against
#                     the board's part, printed as a table
# Then, where Vivado and v++ are on PATH: package_xo (vivado -mode batch), v++ --link, and the
# configuration's model key added as the xclbin's USER_METADATA (xclbinutil), which the xrt
# backend checks. Without them it stops after the checks, naming the missing tool (exit 3).
#
# Environment: PLATFORM overrides the board's platform (a name or an .xpfm path);
# XCLBIN_ESTIMATE=0 skips the yosys estimate (minutes on the default configuration);
# XCLBIN_ESTIMATE_CACHE is the estimates' folder (default build/rtl/resources, laid out as
# `vta sweep --cache`: <estimate>/<model key>.json, reused while the RTL is unchanged).
set -eu
[ $# -eq 5 ] || { echo "usage: xclbin-flow.sh BOARD CONFIG.json OUTDIR SVGEN XCLBIN_TOOL" >&2; exit 2; }
board=$1 config=$2 out=$3 svgen=$4 xtool=$5
repo=$(cd "$(dirname "$0")/.." && pwd)
bdir="$repo/hw/vitis/boards"
say() { echo "make xclbin: $*"; }
die() { echo "make xclbin: $*" >&2; exit 1; }

if [ ! -f "$bdir/$board.mk" ] || [ ! -f "$bdir/$board.cfg" ]; then
  die "no board '$board' (boards: $(cd "$bdir" && ls *.mk | sed 's/\.mk$//' | paste -sd' '))"
fi
get() {
  local v
  v=$(sed -n "s/^BOARD_$1 := //p" "$bdir/$board.mk")
  [ -n "$v" ] || die "hw/vitis/boards/$board.mk has no BOARD_$1"
  echo "$v"
}
name=$(get NAME) kind=$(get KIND) part=$(get PART) family=$(get FAMILY) memory=$(get MEMORY)
banks=$(get BANKS)
platform=${PLATFORM:-$(get PLATFORM)}
[ -n "$config" ] || config=$(get CONFIG)
[ -f "$config" ] || die "no configuration file $config"
mkdir -p "$out"
say "$name ($part, platform $platform), configuration $config -> $out"

# vta_pkg.sv
dir=$("$svgen" "$config" "$repo/build/rtl") || die "vta-svgen refused $config"
key=$(basename "$dir")
cp "$dir/vta_pkg.sv" "$out/vta_pkg.sv"
say "  vta_pkg.sv        model $key"

# kernel.xml
"$svgen" --kernel-xml "$config" > "$out/kernel.xml.tmp" && mv "$out/kernel.xml.tmp" "$out/kernel.xml"
command -v xmllint >/dev/null || die "xmllint was not found (Debian package libxml2-utils; scripts/deps.sh installs it)"
xmllint --noout "$out/kernel.xml" || die "kernel.xml is not well-formed XML"
grep -q '<kernel name="vta"' "$out/kernel.xml" || die "kernel.xml names no vta kernel"
say "  kernel.xml        well-formed, kernel vta, m_axi_gmem $(grep -o 'dataWidth="[0-9]*"' "$out/kernel.xml" | tail -1)"

# Tcl: the register map and the packaging script
"$svgen" --kernel-tcl > "$out/kernel_regs.tcl.tmp" && mv "$out/kernel_regs.tcl.tmp" "$out/kernel_regs.tcl"
cp "$repo/hw/vitis/package_xo.tcl" "$out/package_xo.tcl"
command -v tclsh >/dev/null || die "tclsh was not found (Debian package tcl; scripts/deps.sh installs it)"
for t in kernel_regs.tcl package_xo.tcl; do
  [ "$(echo 'set f [open [lindex $argv 0]]; puts [info complete [read $f]]' | tclsh /dev/stdin "$out/$t")" = 1 ] ||
    die "$t is not complete Tcl (unbalanced braces or quotes)"
done
nregs=$(grep -c '^set r \[ipx::add_register' "$out/kernel_regs.tcl")
say "  kernel_regs.tcl   complete Tcl, $nregs registers; package_xo.tcl complete Tcl"

# link.cfg: the board's connectivity and the kernel clock
mhz=$(sed -n 's/.*"CLOCK_MHZ" *: *\([0-9.]*\).*/\1/p' "$config" | head -1)
mhz=${mhz:-100}
{ cat "$bdir/$board.cfg"; echo "[clock]"; echo "freqHz=$(echo "$mhz * 1000000 / 1" | bc):vta_1.ap_clk"; } > "$out/link.cfg"
awk '/^\[/ { if ($0 != "[connectivity]" && $0 != "[clock]") bad = bad " " $0 } END { exit bad != "" }' "$out/link.cfg" ||
  die "link.cfg has a section other than [connectivity] and [clock]"
grep -qx 'nk=vta:1:vta_1' "$out/link.cfg" || die "link.cfg does not instantiate the vta kernel (nk=vta:1:vta_1)"
grep -qxF "sp=vta_1.m_axi_gmem:$memory" "$out/link.cfg" || die "link.cfg does not put m_axi_gmem on $memory (the board's memory)"
say "  link.cfg          vta_1, m_axi_gmem on $memory, ${mhz} MHz"

# lint of the Vitis top level
command -v verilator >/dev/null || die "verilator was not found (Debian package verilator)"
verilator --lint-only -Wall "$repo/hw/lint/verilator.vlt" "$out/vta_pkg.sv" "$repo"/hw/rtl/*.sv \
  "$repo/hw/vitis/vta.sv" --top-module vta > "$out/lint.log" 2>&1 ||
  die "the Vitis top level does not lint cleanly (log: $out/lint.log)"
say "  lint              hw/vitis/vta.sv + hw/rtl: verilator -Wall clean"

# a metadata-only xclbin with the board's banks
bank_args=()
i=0 gmem=0
for b in $banks; do
  bank_args+=(--bank "$b")
  [ "${b%%:*}" = "$memory" ] && gmem=$i
  i=$((i + 1))
done
"$xtool" meta "$config" "$out/vta_meta.xclbin" --platform "$platform" "${bank_args[@]}" --gmem "$gmem" ||
  die "vta-xclbin could not write the metadata-only xclbin"
"$xtool" check "$out/vta_meta.xclbin" "$config" > "$out/vta_meta.txt" || die "vta_meta.xclbin does not check"
say "  vta_meta.xclbin   metadata only (no bitstream): $(sed -n 's/^uuid: *//p' "$out/vta_meta.txt"), loads under XCL_EMULATION_MODE=noop"

# resource estimate against the part
if [ "${XCLBIN_ESTIMATE:-1}" != 0 ]; then
  estimate=$family
  [ "$family" = xcup ] && [ "$(get URAM)" = 0 ] && estimate=xcup-nouram
  say "  estimating resources with yosys synth_xilinx ($estimate; minutes on the default configuration) ..."
  est=$("$repo/scripts/rtl-resources.sh" "$svgen" "$config" "$estimate" \
        "${XCLBIN_ESTIMATE_CACHE:-$repo/build/rtl/resources}/") ||
    die "the yosys estimate failed"
  echo "$est" > "$out/resources.json"
  field() { echo "$est" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
  row() { # name used available
    local pct
    pct=$(echo "scale=3; 100 * $2 / $3" | bc)
    printf 'make xclbin:     %-8s %10s of %9s  %5.1f %%%s\n' "$1" "$2" "$3" "$pct" \
      "$( [ "$(echo "$2 > $3" | bc)" = 1 ] && echo '  OVER' )"
  }
  say "  resources.json    estimate of $key against $part:"
  row LUT "$(field lut)" "$(get LUT)"
  row FF "$(field ff)" "$(get FF)"
  row DSP "$(field dsp)" "$(get DSP)"
  row BRAM36 "$(field bram36)" "$(get BRAM36)"
  row URAM "$(field uram)" "$(get URAM)"
else
  say "  resources.json    skipped (XCLBIN_ESTIMATE=0)"
fi

# the Xilinx part of the flow
missing=""
command -v vivado >/dev/null || missing="vivado (Vivado, for package_xo)"
command -v v++ >/dev/null || missing="${missing:+$missing and }v++ (Vitis, for the link)"
if [ -n "$missing" ]; then
  echo "make xclbin: stopped: $missing not on PATH. Everything that needs no Xilinx tool is written and checked in $out; on a machine with Vitis, source its settings64.sh and run the same command again." >&2
  exit 3
fi
say "  vivado: packaging the kernel ..."
vivado -mode batch -nojournal -log "$out/vivado.log" -source "$out/package_xo.tcl" \
  -tclargs "$out" "$repo" "$part" > /dev/null || die "package_xo failed (log: $out/vivado.log)"
say "  v++ --link for $platform ..."
v++ -t hw --platform "$platform" --link "$out/vta.xo" --config "$out/link.cfg" \
  -o "$out/vta.link.xclbin" --temp_dir "$out/_x" --log_dir "$out/logs" > "$out/vpp.log" 2>&1 ||
  die "v++ --link failed (log: $out/vpp.log)"
command -v xclbinutil >/dev/null || die "xclbinutil (XRT) was not found: cannot name the configuration in the xclbin"
printf 'vta-config %s\n' "$key" > "$out/vta_config.txt"
xclbinutil --input "$out/vta.link.xclbin" --add-section "USER_METADATA:RAW:$out/vta_config.txt" \
  --output "$out/vta.xclbin.tmp" --force > "$out/xclbinutil.log" 2>&1 ||
  die "xclbinutil could not add the configuration (log: $out/xclbinutil.log)"
mv "$out/vta.xclbin.tmp" "$out/vta.xclbin"
"$xtool" check "$out/vta.xclbin" "$config" || die "the built xclbin does not check"
say "done: $out/vta.xclbin"

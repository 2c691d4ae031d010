#!/usr/bin/env bash
# rtl-synth.sh SVGEN CONFIG.json OUTROOT - synthesis check of hw/ with yosys synth_xilinx on one
# (small) configuration: the design must elaborate, synthesize, contain no latch and pass
# yosys's `check`.
#
# Debian's yosys (0.23) parses a subset of SystemVerilog without `import pkg::*`, so the sources
# are first rewritten mechanically into a copy: the import line is dropped and every name the
# generated package declares is qualified as vta_pkg::Name. Nothing else is changed.
set -eu
command -v yosys >/dev/null || { echo "rtl-synth.sh: yosys was not found (Debian package yosys); run scripts/deps.sh as root" >&2; exit 1; }
svgen=$1 config=$2 root=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$svgen" "$config" "$root")
out="$dir/synth"
mkdir -p "$out/src"
ids=$(grep -oE '(localparam [a-z ]+(\[[^]]*\])? |\} )[A-Za-z_0-9]+' "$dir/vta_pkg.sv" | awk '{print $NF}' |
      sort -u | paste -sd'|')
for f in "$repo"/hw/rtl/*.sv; do
  if grep -q 'import vta_pkg::\*;' "$f"; then
    # Port names in connections (.Name(...)) are the cell's own, not the package's.
    perl -0pe "s/\n\s*import vta_pkg::\*;\s*\n/\n/; s/(?<![.\w])($ids)\b/vta_pkg::\$1/g" "$f" > "$out/src/$(basename "$f")"
  else
    cp "$f" "$out/src/"
  fi
done
yosys -q -l "$out/yosys.log" -p "
  read_verilog -sv $dir/vta_pkg.sv $(ls "$out"/src/*.sv | tr '\n' ' ')
  hierarchy -check -top vta_top
  proc
  select -assert-none t:\$dlatch t:\$_DLATCH_*
  synth_xilinx -top vta_top -flatten
  select -assert-none t:LDCE t:LDPE t:\$dlatch t:\$_DLATCH_*
  check -assert
  tee -o $out/stat.txt stat
" || { echo "rtl-synth.sh: synthesis check of $(basename "$dir") failed (log: $out/yosys.log)" >&2; exit 1; }
echo "synth ok  $(basename "$dir")  ($config): $(grep -E 'Number of cells' "$out/stat.txt" | tail -1 | awk '{print $NF}') cells, no latches (report: $out/stat.txt)"

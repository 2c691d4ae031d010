#!/usr/bin/env bash
# rtl-yosys-src.sh PKGDIR OUTDIR [EXTRA.sv...] - copies hw/rtl/*.sv (and the extra sources) into OUTDIR in the form Debian's yosys
# (0.23) reads, and prints the file list for read_verilog (the package first). Shared by
# rtl-synth.sh (the synthesis check), rtl-resources.sh (resource estimates) and rtl-timing.sh
# (static timing).
#
# yosys parses a subset of SystemVerilog without `import pkg::*`, so the sources are rewritten
# mechanically: the import line is dropped and every name the generated package PKGDIR/vta_pkg.sv
# declares is qualified as vta_pkg::Name. Nothing else is changed.
set -eu
dir=$1 out=$2
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
rm -f "$out"/*.sv  # a module removed from hw/rtl must not linger
ids=$(grep -oE '(localparam [a-z ]+(\[[^]]*\])? |\} )[A-Za-z_0-9]+' "$dir/vta_pkg.sv" | awk '{print $NF}' |
      sort -u | paste -sd'|')
for f in "$repo"/hw/rtl/*.sv "$@"; do
  if grep -q 'import vta_pkg::\*;' "$f"; then
    # Port names in connections (.Name(...)) are the cell's own, not the package's.
    perl -0pe "s/\n\s*import vta_pkg::\*;\s*\n/\n/; s/(?<![.\w])($ids)\b/vta_pkg::\$1/g" "$f" > "$out/$(basename "$f")"
  else
    cp "$f" "$out/"
  fi
done
echo "$dir/vta_pkg.sv $(ls "$out"/*.sv | tr '\n' ' ')"

#!/usr/bin/env bash
# rtl-yosys-src.sh PKGDIR OUTDIR [EXTRA.sv...] - a copy of hw/rtl (and the extra sources) that
# Debian's yosys 0.23 reads: it parses a subset of SystemVerilog without `import pkg::*`, so the
# import line is dropped and every name the generated package PKGDIR/vta_pkg.sv declares is
# qualified as vta_pkg::Name. Nothing else is changed. Prints the source list (package first).
set -eu
dir=$1 out=$2
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
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

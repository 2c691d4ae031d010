#!/usr/bin/env bash
# rtl-timing.sh SVGEN LIMIT_NS OUTROOT [-top MODULE] CONFIG.json... - static timing estimate of
# hw/ on Xilinx 7-series cell delays, one configuration at a time.
#
# The method: yosys `synth_xilinx -flatten` of vta_top (or of MODULE with -top; the levels the RTL
# keeps, vta_cut, are mapped apart and flattened after mapping), then the cell
# library's timing (`read_verilog -lib -specify +/xilinx/cells_sim.v`) and `sta`, which reports
# the latest arrival time at any flip-flop, block RAM or DSP input: logic delays only, no
# routing, no setup time (docs/hw.md, "Timing"). For each configuration it prints the critical
# path (arrival time, start and end point, the instances and source lines it runs through), the
# number of endpoints later than LIMIT_NS by the arrival histogram, and the resources; it fails
# when any configuration's critical path exceeds LIMIT_NS. Reports stay in
# OUTROOT/<model key>/timing[-MODULE]/ (sta.txt, stat.txt, yosys.log, netlist.json, and
# endpoints.txt: every endpoint later than LIMIT_NS grouped by register, from
# scripts/rtl-sta-endpoints.py on the netlist; the first few groups are printed).
set -eu
svgen=$1 limit=$2 root=$3
shift 3
top=vta_top
if [ "${1:-}" = -top ]; then top=$2; shift 2; fi
[ $# -gt 0 ] || { echo "rtl-timing.sh: no configuration given" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
case $limit in (*[!0-9.]*|'') echo "rtl-timing.sh: limit '$limit' is not a number of ns" >&2; exit 2;; esac
command -v yosys >/dev/null || { echo "rtl-timing.sh: yosys not found (package yosys, scripts/deps.list)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "rtl-timing.sh: python3 not found (package python3, scripts/deps.list)" >&2; exit 2; }
for c in "$@"; do
  [ -f "$c" ] || { echo "rtl-timing.sh: configuration $c: no such file" >&2; exit 2; }
done
# The cell library's timing arcs, for the endpoint report (scripts/rtl-sta-endpoints.py).
cells="$root/xilinx-cells-timing.json"
if [ ! -s "$cells" ]; then
  mkdir -p "$root"
  yosys -q -p "read_verilog -lib -specify +/xilinx/cells_sim.v; proc; write_json $cells.tmp" \
    > /dev/null 2>&1 && mv "$cells.tmp" "$cells" || {
    echo "rtl-timing.sh: could not read yosys' xilinx cell library timing" >&2; exit 1; }
fi
fail=0
declare -A seen
for c in "$@"; do
  dir=$("$svgen" "$c" "$root")
  if [ -n "${seen[$dir]:-}" ]; then
    echo "timing same $(basename "$dir") ($c): the same hardware as ${seen[$dir]}"
    continue
  fi
  seen[$dir]=$c
  sub=timing; [ "$top" = vta_top ] || sub=timing-$top
  out="$dir/$sub"
  mkdir -p "$out"
  srcs=$("$repo/scripts/rtl-yosys-src.sh" "$dir" "$out/src")
  t0=$(date +%s)
  if ! yosys -q -l "$out/yosys.log" -p "
      read_verilog -sv $srcs
      hierarchy -check -top $top
      proc
      synth_xilinx -top $top -flatten
      setattr -mod -unset keep_hierarchy
      flatten
      tee -q -o $out/stat.txt.tmp stat
      write_json $out/netlist.json.tmp
      read_verilog -lib -specify +/xilinx/cells_sim.v
      tee -q -o $out/sta.txt.tmp sta
    " > /dev/null 2>&1; then
    echo "rtl-timing.sh: synthesis/sta of $top for $c failed (log: $out/yosys.log)" >&2
    exit 1
  fi
  # yosys 0.23 reads some SystemVerilog (an unpacked array of a struct) with selects out of
  # range and only warns: the netlist measured would not be the RTL.
  if grep -m1 'out of bounds' "$out/yosys.log" >&2; then
    echo "rtl-timing.sh: yosys read a select out of range in $top for $c (above; log: $out/yosys.log)" >&2
    exit 1
  fi
  # It also reads an unpacked array of a packed struct assigned in a loop as one element with
  # only a bit per element driven, and leaves the rest undriven (found in the burst generators,
  # November 2026): any wire used without a driver means the same.
  if grep -m1 'is used but has no driver' "$out/yosys.log" >&2; then
    echo "rtl-timing.sh: yosys left a wire undriven in $top for $c (above; log: $out/yosys.log): the netlist measured would not be the RTL" >&2
    exit 1
  fi
  mv "$out/stat.txt.tmp" "$out/stat.txt"
  mv "$out/sta.txt.tmp" "$out/sta.txt"
  secs=$(( $(date +%s) - t0 ))
  perl "$repo/scripts/rtl-timing-report.pl" "$out/sta.txt" "$out/stat.txt" "$limit" \
    "$(basename "$dir")" "$c" "$top" "$secs" || fail=1
  # Every late endpoint, grouped by register (sta names only the latest path).
  python3 "$repo/scripts/rtl-sta-endpoints.py" "$out/netlist.json.tmp" "$cells" "$limit" 200 \
    > "$out/endpoints.txt.tmp" || { echo "rtl-timing.sh: endpoint report for $c failed" >&2; exit 1; }
  mv "$out/endpoints.txt.tmp" "$out/endpoints.txt"
  mv "$out/netlist.json.tmp" "$out/netlist.json"
  awk -v f="$out/endpoints.txt" 'NR == 1 { print "  " $0 " (all: " f ")"; next }
    / ns / && n < 6 { n++; printf "    %s\n", $0 }' "$out/endpoints.txt"
done
exit $fail

// vta_cut - a boundary that synthesis keeps: its output is its input, and the module is kept
// as a hierarchy level (keep_hierarchy), so the logic in front of it and behind it is mapped
// apart, each into its own LUTs.
//
// For logic whose depth is designed level by level (the compute module's dispatch decision):
// yosys's abc maps a function of some forty flip-flops as it likes, merging levels into
// LUT7/LUT8 (MUXF7/MUXF8) cells and duplicating terms around nets marked (* keep *), and the
// result moved by 0.3-0.6 ns between syntheses of the same logic. A cut between the levels
// fixes the structure: every level is a LUT of at most six inputs. Vivado honours the same
// attribute. The timing, synthesis and resource scripts flatten the design after mapping
// (scripts/rtl-timing.sh), where the cut becomes a wire.
(* keep_hierarchy *)
module vta_cut #(
  parameter int unsigned W = 1
) (
  input  logic [W-1:0] i,
  output logic [W-1:0] o
);
  assign o = i;
endmodule

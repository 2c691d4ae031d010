// vta_pick - a two-way multiplexer that synthesis keeps as a level of its own (keep_hierarchy):
// o_o = sel_i ? a_i : b_i, one LUT3 per bit behind both candidates.
//
// For a register whose next value a late decision picks (the compute module's take, a queue's
// pop): the candidates are worked out in front of the pick from the other inputs, so the late
// select passes one LUT. Left to itself, yosys's abc folds the select into the candidates'
// cones wherever that saves LUTs, and since a signal that leaves a kept level (vta_cut) reaches
// it as if at time zero, it may put such a select several LUTs deep. The timing, synthesis and
// resource scripts flatten the design after mapping (scripts/rtl-timing.sh).
(* keep_hierarchy *)
module vta_pick #(
  parameter int unsigned W = 1
) (
  input  logic         sel_i,
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  output logic [W-1:0] o_o
);
  assign o_o = sel_i ? a_i : b_i;
endmodule

// vta_pick4 - a four-way multiplexer by two selects that synthesis keeps as a level of its own
// (keep_hierarchy): o_o = s1_i ? (s0_i ? a_i : b_i) : (s0_i ? c_i : d_i), one LUT6 per bit
// behind the candidates (a LUT5 where two candidates are the same signal). As vta_pick, for a
// register whose next value late decisions pick: a counter's flag by its increment and
// decrement, a burst generator's next burst by the address channel's answer and whether the
// burst ended its row.
(* keep_hierarchy *)
module vta_pick4 #(
  parameter int unsigned W = 1
) (
  input  logic         s1_i,
  input  logic         s0_i,
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  input  logic [W-1:0] c_i,
  input  logic [W-1:0] d_i,
  output logic [W-1:0] o_o
);
  assign o_o = s1_i ? (s0_i ? a_i : b_i) : (s0_i ? c_i : d_i);
endmodule

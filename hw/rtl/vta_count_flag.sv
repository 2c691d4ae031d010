// vta_count_flag - a register that holds (count == Value) for a vta_updown counter.
//
// Its next value is picked by the counter's late increment and decrement among comparisons of
// the count register alone (the value below Value for an increment, the one above for a
// decrement), so a consumer's test of the count (empty, full, one left) is a flip-flop rather
// than an equality over every bit of the count, and the late decisions pass one multiplexer.
module vta_count_flag #(
  parameter int unsigned Width = 8,
  parameter int unsigned Value = 0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic             inc_i,
  input  logic             dec_i,
  input  logic [Width-1:0] count_i,
  output logic             eq_o
);
  // Width is below 32 (checked by vta_updown), so the sums below do not overflow.
  localparam longint unsigned Mod = 64'd1 << Width;
  localparam bit Reachable = (64'(Value) < Mod);
  localparam logic [Width-1:0] Below = Width'((64'(Value) + Mod - 64'd1) % Mod);
  localparam logic [Width-1:0] Above = Width'((64'(Value) + 64'd1) % Mod);
  localparam bit AtZero = (Value == 0);

  logic eq_q, eq_d, eq_below, eq_above;
  assign eq_o = eq_q;

  // Written as an and-or of the two comparisons, not a multiplexer between them: yosys'
  // opt_share would otherwise merge them into one comparison behind a multiplexer of its
  // constants, with the late inc_i and dec_i in front of the whole equality.
  assign eq_below = Reachable && (count_i == Below);
  assign eq_above = Reachable && (count_i == Above);
  // Picked by inc_i and dec_i (a push and a pop, often a producer's and a consumer's late
  // dispatch decisions) among values worked out from the rest (vta_pick4, one LUT in front of
  // the flag), so that neither enters the whole function (an increment and a decrement
  // together leave the count).
  logic eq_keep, eq_up, eq_down;
  assign eq_keep = clear_i ? AtZero : eq_q;
  assign eq_up   = clear_i ? AtZero : eq_below;
  assign eq_down = clear_i ? AtZero : eq_above;
  vta_pick4 u_pick (.s1_i(dec_i), .s0_i(inc_i), .a_i(eq_keep), .b_i(eq_down), .c_i(eq_up),
                    .d_i(eq_keep), .o_o(eq_d));

  always_ff @(posedge clk_i) begin
    if (!rst_ni) eq_q <= AtZero;
    else eq_q <= eq_d;
  end
endmodule

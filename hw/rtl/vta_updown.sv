// vta_updown - an up/down counter whose increment and decrement only pick the next value.
//
// The count is kept with its successor and predecessor in registers, each next value a sum of
// a register, so a late inc_i or dec_i (a consumer's dispatch decision, a producer's push)
// selects among them instead of entering an adder. Both in one cycle leave the count as it is;
// clear_i (first) returns it to zero. The tests consumers make of the count (zero, one, two,
// Top: empty, the last element, full) are registers too (vta_count_flag), so a decision on them
// starts at a flip-flop instead of an equality over the count's bits (a LUT6 and two wide
// multiplexers in front of every queue's ready and valid). Assertions check the copies and
// flags against the count. Used by the queues (vta_fifo), the token counters (vta_sem) and the
// compute's retire queue. Width is below 32.
module vta_updown #(
  parameter int unsigned Width = 8,
  parameter int unsigned Top = 0,  // the value top_o compares with (a queue's depth)
  // The increment and decrement pick last (vta_pick4) among the next values worked out in front
  // of the pick: for a counter whose increment and decrement are late dispatch decisions (the
  // token counters)
  parameter bit          LatePick = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic             inc_i,
  input  logic             dec_i,
  output logic [Width-1:0] count_o,
  output logic             zero_o,  // count_o == 0
  output logic             one_o,   // count_o == 1
  output logic             two_o,   // count_o == 2
  output logic             top_o    // count_o == Top
);
  logic [Width-1:0] count_d, count_q, cp1_d, cp1_q, cm1_d, cm1_q;

`ifndef SYNTHESIS
  initial begin
    assert (Width >= 1 && Width <= 31) else $error("vta_updown: Width %0d outside 1..31", Width);
  end
`endif

  assign count_o = count_q;

  // The next values with an increment alone, a decrement alone, and neither or both (which
  // leave the count), picked by inc_i and dec_i; with LatePick the pick is kept (vta_pick4).
  logic [3*Width-1:0] v_keep, v_dec, v_inc, v_d;
  assign v_keep = clear_i ? {Width'(0), Width'(1), {Width{1'b1}}} : {count_q, cp1_q, cm1_q};
  assign v_dec  = clear_i ? v_keep : {cm1_q, count_q, cm1_q - 1'b1};
  assign v_inc  = clear_i ? v_keep : {cp1_q, cp1_q + 1'b1, count_q};
  if (LatePick) begin : g_pick
    vta_pick4 #(.W(3 * Width)) u_pick (
      .s1_i(dec_i), .s0_i(inc_i), .a_i(v_keep), .b_i(v_dec), .c_i(v_inc), .d_i(v_keep),
      .o_o(v_d)
    );
  end else begin : g_mux
    assign v_d = dec_i ? (inc_i ? v_keep : v_dec) : (inc_i ? v_inc : v_keep);
  end
  assign {count_d, cp1_d, cm1_d} = v_d;

  // The flags: the late inc_i and dec_i pick among comparisons of count_q alone.
  vta_count_flag #(.Width(Width), .Value(0)) u_zero (
    .clk_i, .rst_ni, .clear_i, .inc_i, .dec_i, .count_i(count_q),
    .eq_o(zero_o)
  );
  vta_count_flag #(.Width(Width), .Value(1)) u_one (
    .clk_i, .rst_ni, .clear_i, .inc_i, .dec_i, .count_i(count_q),
    .eq_o(one_o)
  );
  vta_count_flag #(.Width(Width), .Value(2)) u_two (
    .clk_i, .rst_ni, .clear_i, .inc_i, .dec_i, .count_i(count_q),
    .eq_o(two_o)
  );
  vta_count_flag #(.Width(Width), .Value(Top)) u_top (
    .clk_i, .rst_ni, .clear_i, .inc_i, .dec_i, .count_i(count_q),
    .eq_o(top_o)
  );

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      count_q <= '0;
      cp1_q   <= Width'(1);
      cm1_q   <= '1;
    end else begin
      count_q <= count_d;
      cp1_q   <= cp1_d;
      cm1_q   <= cm1_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (cp1_q == count_q + 1'b1 && cm1_q == count_q - 1'b1)
      else $error("vta_updown: count copies %0d, %0d disagree with %0d", cp1_q, cm1_q, count_q);
      assert (zero_o == (count_q == '0) && one_o == (32'(count_q) == 1) &&
              two_o == (32'(count_q) == 2) && top_o == (32'(count_q) == Top))
      else $error("vta_updown: a flag disagrees with the count %0d", count_q);
    end
  end
`endif
endmodule

// vta_updown - an up/down counter whose increment and decrement only pick the next value.
//
// The count is kept with its successor and predecessor in registers, each next value a sum of
// a register, so a late inc_i or dec_i (a consumer's dispatch decision, a producer's push)
// selects among them instead of entering an adder. Both in one cycle leave the count as it is;
// clear_i (first) returns it to zero. An assertion checks the copies against the count. Used
// by the queues (vta_fifo) and the token counters (vta_sem).
module vta_updown #(
  parameter int unsigned Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic             inc_i,
  input  logic             dec_i,
  output logic [Width-1:0] count_o
);
  logic [Width-1:0] count_d, count_q, cp1_d, cp1_q, cm1_d, cm1_q;

  assign count_o = count_q;

  always_comb begin
    count_d = count_q;
    cp1_d   = cp1_q;
    cm1_d   = cm1_q;
    if (clear_i) begin
      count_d = '0;
      cp1_d   = Width'(1);
      cm1_d   = '1;
    end else if (inc_i && !dec_i) begin
      count_d = cp1_q;
      cp1_d   = cp1_q + 1'b1;
      cm1_d   = count_q;
    end else if (dec_i && !inc_i) begin
      count_d = cm1_q;
      cp1_d   = count_q;
      cm1_d   = cm1_q - 1'b1;
    end
  end

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
    end
  end
`endif
endmodule

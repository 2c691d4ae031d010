// vta_add_lut - a narrow sum written as logic (sum and carry per bit), not as an adder.
//
// Synthesis maps an adder to a carry chain, whose entry costs about 0.5 ns and which the LUT
// mapper cannot merge with the logic around it. A sum of a few bits that feeds more logic (the
// DMAs' low address bits into their partial beats) is a function of few inputs: written out
// per bit, the mapper folds it into the LUTs of what reads it.
module vta_add_lut #(
  parameter int unsigned W = 3
) (
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  output logic [W:0]   sum_o  // with the carry out
);
  always_comb begin
    logic c;
    c = 1'b0;
    for (int i = 0; i < W; i++) begin
      sum_o[i] = a_i[i] ^ b_i[i] ^ c;
      c        = (a_i[i] & b_i[i]) | (c & (a_i[i] ^ b_i[i]));
    end
    sum_o[W] = c;
  end
endmodule

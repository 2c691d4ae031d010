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
  function automatic logic [W:0] add_bits(logic [W-1:0] a, logic [W-1:0] b);
    logic c;
    c = 1'b0;
    for (int i = 0; i < W; i++) begin
      add_bits[i] = a[i] ^ b[i] ^ c;
      c           = (a[i] & b[i]) | (c & (a[i] ^ b[i]));
    end
    add_bits[W] = c;
  endfunction
`ifdef SYNTHESIS
  assign sum_o = add_bits(a_i, b_i);
`else
  // Simulated as a sum, the same value: Verilator's model of the per-bit form ran 8 % slower
  // (bench gemm on rtl). The per-bit form is checked against the sum for every operand pair
  // once, as the model starts.
  assign sum_o = {1'b0, a_i} + {1'b0, b_i};
  initial begin
    int bad_x, bad_y;
    bad_x = -1;
    bad_y = -1;
    for (int x = 0; x < (1 << W); x++) begin
      for (int y = 0; y < (1 << W); y++) begin
        if (bad_x < 0 && add_bits(W'(x), W'(y)) != (W + 1)'(x + y)) begin
          bad_x = x;
          bad_y = y;
        end
      end
    end
    assert (bad_x < 0) else $error("vta_add_lut: the per-bit sum of %0d and %0d is wrong", bad_x, bad_y);
  end
`endif
endmodule

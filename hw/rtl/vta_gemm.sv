// vta_gemm - the GEMM core's dot products: BATCH x BLOCK_OUT sums of BLOCK_IN products, one set
// accepted per cycle, pipelined for the clock (docs/hw.md, "Compute pipeline").
//
// dot[b][o] = sum over c of INP[b][c] * WGT[o][c]: the weight tile is stored [BLOCK_OUT]
// [BLOCK_IN], so a tile computes x * W^T. Lanes are packed little-endian (lane 0 in the low
// bits). The products are taken in pairs (leaves 2i and 2i+1; BLOCK_IN is a power of two, at
// least 2), each pair in two DSP slices joined by their cascade (PCOUT -> PCIN), so that the
// first level of the adder tree is the second slice's post-adder and its P register, not
// fabric adders and flip-flops. The stages, each ending in a register:
//   G1 operands (the slices' A/B input registers; the pair's second slice takes them through
//      a second input register in G2, so that its product meets the first one's in time),
//   G2 products (M registers; the second slice's operands),
//   G3 products again (the first slice's P register; the second slice's M register),
//   T1 the pair's sum (the second slice's P register: M + PCIN),
//   T2 .. T(GemmTreeLevels) one level of a binary adder tree each, at the exact width
//      (products of InpWidth+WgtWidth bits plus one bit per level: no term ever overflows).
// dot_o is the sum sign-extended or cut to AccWidth bits, which is the sum modulo 2^AccWidth,
// the functional simulator's arithmetic; the accumulate into ACC is the caller's (C2), so the
// dot product of a micro-op is ready 3 + GemmTreeLevels cycles after its operands. The
// pipeline has no stall: every register loads every cycle. Written so that yosys'
// synth_xilinx infers the slices with AREG/BREG 1 and 2, MREG, PREG and the cascade (checked by
// tests/hw/test_timing: no fabric register or adder in level 1).
module vta_gemm
  import vta_pkg::*;
(
  input  logic                                 clk_i,
  input  logic [Batch*BlockIn*InpWidth-1:0]    inp_i,
  input  logic [BlockOut*BlockIn*WgtWidth-1:0] wgt_i,
  output logic [AccLanes*AccWidth-1:0]         dot_o
);
  localparam int unsigned PW = InpWidth + WgtWidth;  // product width
  localparam int unsigned L = GemmTreeLevels;
  localparam int unsigned N = 1 << L;  // leaves: BlockIn (a power of two, isa/config.c)
  localparam int unsigned SW = PW + L;  // width of the sum

  logic [Batch*BlockIn*InpWidth-1:0]    x_q;
  logic [BlockOut*BlockIn*WgtWidth-1:0] w_q;
  always_ff @(posedge clk_i) begin
    x_q <= inp_i;
    w_q <= wgt_i;
  end

  for (genvar b = 0; b < Batch; b++) begin : g_b
    for (genvar o = 0; o < BlockOut; o++) begin : g_o
      // level l (1 .. L) holds N >> l sums of PW + l bits, stored at SW bits (sign-extended)
      logic signed [SW-1:0] lvl_q [1:L][N/2];
      for (genvar i = 0; i < (N >> 1); i++) begin : g_pair
        // Leaves 2i and 2i+1 in two cascaded DSP slices: the first registers its operands
        // (G1), product (G2) and product again (G3, P); the second registers its operands
        // twice (A1/B1 in G1, A2/B2 in G2), its product in G3 and adds the first one's P
        // through the cascade into its own P (T1). Level 1 of the tree is thus inside the
        // slices, at the same cycle as a fabric adder's register.
        logic signed [InpWidth-1:0] x0, x1, x1_q;
        logic signed [WgtWidth-1:0] w0, w1, w1_q;
        logic signed [PW-1:0] m0_q, p0_q, m1_q;
        logic signed [PW:0] s_q;
        assign x0 = x_q[(b*BlockIn+2*i)*InpWidth+:InpWidth];
        assign w0 = w_q[(o*BlockIn+2*i)*WgtWidth+:WgtWidth];
        assign x1 = x_q[(b*BlockIn+2*i+1)*InpWidth+:InpWidth];
        assign w1 = w_q[(o*BlockIn+2*i+1)*WgtWidth+:WgtWidth];
        always_ff @(posedge clk_i) begin
          m0_q <= x0 * w0;
          p0_q <= m0_q;
          x1_q <= x1;
          w1_q <= w1;
          m1_q <= x1_q * w1_q;
          s_q <= (PW+1)'(m1_q) + (PW+1)'(p0_q);
        end
        assign lvl_q[1][i] = SW'(s_q);
      end
      for (genvar l = 2; l <= L; l++) begin : g_lvl
        for (genvar i = 0; i < (N >> l); i++) begin : g_add
          logic signed [PW+l-1:0] s_q;
          always_ff @(posedge clk_i) begin
            s_q <= (PW+l)'(lvl_q[l-1][2*i]) + (PW+l)'(lvl_q[l-1][2*i+1]);
          end
          assign lvl_q[l][i] = SW'(s_q);
        end
      end
      assign dot_o[(b*BlockOut+o)*AccWidth+:AccWidth] = AccWidth'(lvl_q[L][0]);
    end
  end
endmodule

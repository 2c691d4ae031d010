// vta_gemm - the GEMM core's dot products: BATCH x BLOCK_OUT sums of BLOCK_IN products, one set
// accepted per cycle, pipelined for the clock (docs/hw.md, "Compute pipeline").
//
// dot[b][o] = sum over c of INP[b][c] * WGT[o][c]: the weight tile is stored [BLOCK_OUT]
// [BLOCK_IN], so a tile computes x * W^T. Lanes are packed little-endian (lane 0 in the low
// bits). The stages, each ending in a register:
//   G1 operands (the DSP slices' A/B input registers),
//   G2 products (their M registers),
//   G3 products again (their P output registers),
//   T1 .. T(GemmTreeLevels) one level of a binary adder tree each, at the exact width
//      (products of InpWidth+WgtWidth bits plus one bit per level: no term ever overflows).
// dot_o is the sum sign-extended or cut to AccWidth bits, which is the sum modulo 2^AccWidth,
// the functional simulator's arithmetic; the accumulate into ACC is the caller's (C2), so the
// dot product of a micro-op is ready 3 + GemmTreeLevels cycles after its operands. The
// pipeline has no stall: every register loads every cycle.
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
  localparam int unsigned N = 1 << L;  // leaves, BlockIn padded with zero terms
  localparam int unsigned SW = PW + L;  // width of the sum

  logic [Batch*BlockIn*InpWidth-1:0]    x_q;
  logic [BlockOut*BlockIn*WgtWidth-1:0] w_q;
  always_ff @(posedge clk_i) begin
    x_q <= inp_i;
    w_q <= wgt_i;
  end

  for (genvar b = 0; b < Batch; b++) begin : g_b
    for (genvar o = 0; o < BlockOut; o++) begin : g_o
      // level l holds N >> l sums of PW + l bits, stored at SW bits (sign-extended)
      logic signed [SW-1:0] lvl_q [L+1][N];
      for (genvar c = 0; c < N; c++) begin : g_c
        if (c < BlockIn) begin : g_mul
          logic signed [InpWidth-1:0] x;
          logic signed [WgtWidth-1:0] w;
          logic signed [PW-1:0] m_q, p_q;
          assign x = x_q[(b*BlockIn+c)*InpWidth+:InpWidth];
          assign w = w_q[(o*BlockIn+c)*WgtWidth+:WgtWidth];
          always_ff @(posedge clk_i) begin
            m_q <= x * w;
            p_q <= m_q;
          end
          assign lvl_q[0][c] = SW'(p_q);
        end else begin : g_zero
          assign lvl_q[0][c] = '0;
        end
      end
      for (genvar l = 1; l <= L; l++) begin : g_lvl
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

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
// pipeline has no stall, but its registers have clock enables: a stage loads only when the
// stage before it holds a micro-op's operands or sums (v_i and its delays v_q; in the slices
// CEA/CEB/CEM/CEP, in fabric the flip-flops' CE pin, so no logic), so an idle unit keeps its
// values, switches nothing, and a simulator skips its arithmetic (bench alu on rtl: 27 % fewer
// instructions). Written so that yosys' synth_xilinx infers the slices with AREG/BREG 1 and 2,
// MREG, PREG and the cascade (checked by tests/hw/test_timing: no fabric register or adder in
// level 1).
//
// Synthesis maps it as a level of its own (keep_hierarchy; flattened after mapping, as
// vta_cut's levels): its registers end every path into and out of it, and the rest of the
// design's mapping (abc's, which moves by tenths of a nanosecond with any change to the
// netlist it is given) does not change when this module does.
(* keep_hierarchy *)
module vta_gemm
  import vta_pkg::*;
#(
  parameter int unsigned VDelay = 2  // cycles from x_valid_i to its operands at inp_i, wgt_i
) (
  input  logic                                 clk_i,
  input  logic                                 x_valid_i,  // a micro-op's operands are read
  input  logic [Batch*BlockIn*InpWidth-1:0]    inp_i,
  input  logic [BlockOut*BlockIn*WgtWidth-1:0] wgt_i,
  output logic [AccLanes*AccWidth-1:0]         dot_o
);
  localparam int unsigned PW = InpWidth + WgtWidth;  // product width
  localparam int unsigned L = GemmTreeLevels;
  localparam int unsigned N = 1 << L;  // leaves: BlockIn (a power of two, isa/config.c)
  localparam int unsigned SW = PW + L;  // width of the sum

  // v_q[k]: the registers of stage k + 1 (G1, G2, G3, T1, .. T(L)) hold a micro-op's values
  // xv_q: the operands' valid on their way from the buffers' read (VDelay cycles); v_i: inp_i
  // and wgt_i hold a micro-op's operands
  logic [VDelay-1:0] xv_q;
  logic              v_i;
  if (VDelay == 1) begin : g_xv1
    always_ff @(posedge clk_i) xv_q <= x_valid_i;
  end else begin : g_xvn
    always_ff @(posedge clk_i) xv_q <= {xv_q[VDelay-2:0], x_valid_i};
  end
  assign v_i = xv_q[VDelay-1];
  logic [L+1:0] v_q;
  always_ff @(posedge clk_i) begin
    v_q <= {v_q[L:0], v_i};
  end
  // The operand registers of G1 and G2 (a slice's A1/A2 and B1/B2) share one enable, as the
  // slice's two input registers must to be inferred as such: each loads when either stage takes
  // a micro-op's operands (a G1 register loaded from idle inputs as its value moves on to G2
  // holds nothing that is read).
  logic e1;
  assign e1 = v_i | v_q[0];

  logic [Batch*BlockIn*InpWidth-1:0]    x_q;
  always_ff @(posedge clk_i) begin
    if (e1) x_q <= inp_i;
  end

  if (L >= 2) begin : g_packed
    // Two output channels per slice: A = w[2j][k] * 2^16 + w[2j+1][k] (25 bits, the DSP48E1's
    // A port) times B = inp[k], built as {w_hi - (w_lo < 0), w_lo} (a 9-bit decrement and a
    // concatenation) in front of the A register. A pair of slices holds P = H * 2^16 + L (H, L:
    // sums of two products, each in [-32512, 32768]) plus a bias the first slice adds through
    // its C input, chosen so that the 16-bit field u = P[15:0] is read without borrowing from H
    // (tests/hw/test_gemm_pack.c checks the arithmetic exhaustively):
    //   pair i >= 1, bias 32767:  hi = P >>> 16; lo = {~u[15], u[14:0]} (signed) + 1, the + 1
    //                             owed and paid by the lo tree's adders, each with carry-in 1
    //                             (N/2 - 1 adders for N/2 - 1 such pairs);
    //   pair 0, bias -32768:      lo = {~u[15], u[14:0]} (signed), exact but for L = 32768
    //                             (both products (-128) * (-128)), which reads as -32768 and
    //                             lends 1 to hi: ov0 flags that case (from the operands, G1,
    //                             delayed to T1), lo's sign is cleared by it, and
    //                             hi = (P >>> 16) + !ov0, !ov0 the carry-in of the hi tree's
    //                             level-2 adder above pair 0.
    // So every correction is a carry-in from a flip-flop or a constant, and the pipeline and its
    // latency are those of the unpacked design below.
    localparam int unsigned FW = PW;  // the lo field: 16 bits
    localparam int unsigned AW = FW + WgtWidth + 1;  // 25: {9-bit decremented hi, 16-bit lo}
    localparam int unsigned MW = InpWidth + AW;  // product width
    localparam logic [InpWidth-1:0] MinInp = {1'b1, {(InpWidth - 1){1'b0}}};  // -128
    localparam logic [WgtWidth-1:0] MinWgt = {1'b1, {(WgtWidth - 1){1'b0}}};
    logic [BlockOut/2*BlockIn*AW-1:0] a_q;
    for (genvar j = 0; j < BlockOut / 2; j++) begin : g_a
      for (genvar k = 0; k < BlockIn; k++) begin : g_k
        logic signed [WgtWidth-1:0] w_hi, w_lo;
        assign w_hi = wgt_i[((2*j)*BlockIn+k)*WgtWidth+:WgtWidth];
        assign w_lo = wgt_i[((2*j+1)*BlockIn+k)*WgtWidth+:WgtWidth];
        always_ff @(posedge clk_i) begin
          if (e1)
            a_q[(j*BlockIn+k)*AW+:AW] <= {(WgtWidth+1)'(w_hi) - (WgtWidth+1)'(w_lo[WgtWidth-1]),
                                          FW'(w_lo)};
        end
      end
    end

    for (genvar b = 0; b < Batch; b++) begin : g_b
      for (genvar j = 0; j < BlockOut / 2; j++) begin : g_j
        // level l (1 .. L) holds N >> l sums of PW + l bits for each channel, stored at SW bits
        logic signed [SW-1:0] hi_q [1:L][N/2];
        logic signed [SW-1:0] lo_q [1:L][N/2];
        // ov0: pair 0's lo sum is 32768 (x = w_lo = -128 in both of its lanes), in G1 and
        // delayed to T1 beside the pair's P, where it is kept inverted (nov0_q): the inverter
        // keeps the last stage a flip-flop rather than the end of a shift register, whose
        // clock-to-output delay would lead the level-2 adder's carry chain
        logic [2:0] ov0_q;
        logic       nov0_q;
        always_ff @(posedge clk_i) begin
          ov0_q[0] <= (inp_i[(b*BlockIn)*InpWidth+:InpWidth] == MinInp)
                    & (inp_i[(b*BlockIn+1)*InpWidth+:InpWidth] == MinInp)
                    & (wgt_i[((2*j+1)*BlockIn)*WgtWidth+:WgtWidth] == MinWgt)
                    & (wgt_i[((2*j+1)*BlockIn+1)*WgtWidth+:WgtWidth] == MinWgt);
          ov0_q[2:1] <= ov0_q[1:0];
          nov0_q <= ~ov0_q[2];
        end
        for (genvar i = 0; i < (N >> 1); i++) begin : g_pair
          // Slices as in the unpacked design: the first registers its operands (G1), product
          // (G2) and product plus bias (G3, P through C); the second its operands twice, its
          // product (G3) and the sum with the first one's P through the cascade (T1).
          logic signed [InpWidth-1:0] x0, x1, x1_q;
          logic signed [AW-1:0] a0, a1, a1_q;
          logic signed [MW-1:0] m0_q, m1_q;
          logic signed [MW:0] p0_q, s_q;
          // the bias: 32767, or -32768 for pair 0
          localparam logic signed [MW:0] K =
              (i == 0) ? -(MW+1)'(1 << (FW - 1)) : (MW+1)'((1 << (FW - 1)) - 1);
          assign x0 = x_q[(b*BlockIn+2*i)*InpWidth+:InpWidth];
          assign a0 = a_q[(j*BlockIn+2*i)*AW+:AW];
          assign x1 = x_q[(b*BlockIn+2*i+1)*InpWidth+:InpWidth];
          assign a1 = a_q[(j*BlockIn+2*i+1)*AW+:AW];
          always_ff @(posedge clk_i) begin
            if (e1) begin
              x1_q <= x1;
              a1_q <= a1;
            end
            if (v_q[0]) m0_q <= x0 * a0;
            if (v_q[1]) begin
              p0_q <= (MW+1)'(m0_q) + K;
              m1_q <= x1_q * a1_q;
            end
            if (v_q[2]) s_q <= (MW+1)'(m1_q) + p0_q;
          end
          assign hi_q[1][i] = SW'($signed(s_q[MW:FW]));
          if (i == 0) begin : g_ov
            assign lo_q[1][i] = SW'($signed({~s_q[FW-1] & nov0_q, ~s_q[FW-1], s_q[FW-2:0]}));
          end else begin : g_owed
            assign lo_q[1][i] = SW'($signed({~s_q[FW-1], s_q[FW-2:0]}));
          end
        end
        for (genvar l = 2; l <= L; l++) begin : g_lvl
          for (genvar i = 0; i < (N >> l); i++) begin : g_add
            logic signed [PW+l-1:0] h_q, o_q;
            logic cin;
            if (l == 2 && i == 0) begin : g_ov
              assign cin = nov0_q;
            end else begin : g_nocarry
              assign cin = 1'b0;
            end
            always_ff @(posedge clk_i) begin
              if (v_q[l+1]) begin
                h_q <= (PW+l)'(hi_q[l-1][2*i]) + (PW+l)'(hi_q[l-1][2*i+1]) + (PW+l)'(cin);
                o_q <= (PW+l)'(lo_q[l-1][2*i]) + (PW+l)'(lo_q[l-1][2*i+1]) + (PW+l)'(1'b1);
              end
            end
            assign hi_q[l][i] = SW'(h_q);
            assign lo_q[l][i] = SW'(o_q);
          end
        end
        assign dot_o[(b*BlockOut+2*j)*AccWidth+:AccWidth]   = AccWidth'(hi_q[L][0]);
        assign dot_o[(b*BlockOut+2*j+1)*AccWidth+:AccWidth] = AccWidth'(lo_q[L][0]);
      end
    end
  end else begin : g_unpacked
    // BLOCK_IN 2: one pair of products per dot product and no fabric adder to take the
    // packed decoding's correction, so one product per slice.
    logic [BlockOut*BlockIn*WgtWidth-1:0] w_q;
    always_ff @(posedge clk_i) begin
      if (e1) w_q <= wgt_i;
    end
    for (genvar b = 0; b < Batch; b++) begin : g_b
      for (genvar o = 0; o < BlockOut; o++) begin : g_o
        logic signed [InpWidth-1:0] x0, x1, x1_q;
        logic signed [WgtWidth-1:0] w0, w1, w1_q;
        logic signed [PW-1:0] m0_q, p0_q, m1_q;
        logic signed [PW:0] s_q;
        assign x0 = x_q[(b*BlockIn)*InpWidth+:InpWidth];
        assign w0 = w_q[(o*BlockIn)*WgtWidth+:WgtWidth];
        assign x1 = x_q[(b*BlockIn+1)*InpWidth+:InpWidth];
        assign w1 = w_q[(o*BlockIn+1)*WgtWidth+:WgtWidth];
        always_ff @(posedge clk_i) begin
          if (e1) begin
            x1_q <= x1;
            w1_q <= w1;
          end
          if (v_q[0]) m0_q <= x0 * w0;
          if (v_q[1]) begin
            p0_q <= m0_q;
            m1_q <= x1_q * w1_q;
          end
          if (v_q[2]) s_q <= (PW+1)'(m1_q) + (PW+1)'(p0_q);
        end
        assign dot_o[(b*BlockOut+o)*AccWidth+:AccWidth] = AccWidth'(s_q);
      end
    end
  end
endmodule

// vta_alu_stall - the ALU's stall (docs/hw.md, "Compute pipeline", the ALU's stall).
//
// The ALU's operands are registered in O (vta_alu_fwd) while the micro-op just ahead is in
// C2a, before it has a result; a clip is ready a stage later, a product two (vta_alu). So a
// micro-op that reads (as destination or vector operand) the destination of a writing micro-op
// must leave X at least two cycles after it, three after a SHRCLIP and four after a MUL (a
// micro-op with the reset flag writes zero in C2a and counts as neither). The comparisons are
// made one cycle ahead, between the micro-op in U2 and the ones in X (leaving now), e1 and e2
// (those that left X one and two cycles before), and registered as a count of stall cycles
// (hz_q): stall_o holds the ALU's front (C0 to X) for that many cycles, and as many bubbles
// enter the delay line. While the front stalls nothing leaves X and nothing is compared.
module vta_alu_stall
  import vta_pkg::*;
(
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // Only ACC's index bits of the fields and indices are compared.
  /* verilator lint_off UNUSEDSIGNAL */
  // U2 (vta_uop_seq's u2_*): the micro-op's fields and whether its second operand is a vector
  input  logic                     u2_valid_i,
  input  logic                     u2_write_i,
  input  logic                     u2_use_imm_i,
  input  logic                     u2_reset_i,
  input  logic [AluAluOpcodeW-1:0] u2_op_i,
  input  logic [UopDstW-1:0]       u2_dst_i,
  input  logic [UopSrcW-1:0]       u2_src_i,
  // X's, e1's and e2's index less the offsets X will add to U2's fields (vta_uop_seq's hz_*)
  input  logic [UopDstW-1:0]       hz_xd_i,
  input  logic [UopSrcW-1:0]       hz_xs_i,
  input  logic [UopDstW-1:0]       hz_ed_i,
  input  logic [UopSrcW-1:0]       hz_es_i,
  input  logic [UopDstW-1:0]       hz_fd_i,
  input  logic [UopSrcW-1:0]       hz_fs_i,
  /* verilator lint_on UNUSEDSIGNAL */
  // X: the micro-op leaving now (x_valid_i is low in a stall); read by the assertion only, the
  // count reads flags of its kind registered as it enters X (x*_q)
  input  logic                     x_valid_i,
  input  logic                     x_write_i,
  input  logic                     x_reset_i,
  input  logic [AluAluOpcodeW-1:0] x_op_i,
  output logic                     stall_o
);
  logic       x_wr, x_clip, x_mul, need3, need2, need1;
  logic       xw_q, xc_q, xm_q, xcm_q;  // X writes; is a SHRCLIP, a MUL, either (not resetting)
  logic       e1_clip_q, e1_mul_q, e1_cm_q, e2_mul_q;
  logic [1:0] hz_q;
  logic       stall_q;  // hz_q != 0, a register: the stall reaches the dispatch (through the
                        // sequencer's last flag) and every stage's enable one LUT sooner
  logic [2:0] reads;  // U2 reads X's, e1's, e2's destination

  // X's kind as flags registered from U2's fields as the micro-op enters X (the front moves),
  // not decoded from X's tag: that comes out of a shift register (SRL16E, 1.6 ns after the
  // clock), three LUT levels in front of the count (3.5 ns on the default). In a stall nothing
  // is compared and nothing leaves X, so the flags are X's whenever the count reads them.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      xw_q  <= 1'b0;
      xc_q  <= 1'b0;
      xm_q  <= 1'b0;
      xcm_q <= 1'b0;
    end else if (!stall_o) begin
      xw_q  <= u2_valid_i && u2_write_i;
      xc_q  <= u2_valid_i && u2_write_i && (u2_op_i == AluShrclip) && !u2_reset_i;
      xm_q  <= u2_valid_i && u2_write_i && (u2_op_i == AluMul) && !u2_reset_i;
      xcm_q <= u2_valid_i && u2_write_i && (u2_op_i == AluShrclip || u2_op_i == AluMul) &&
               !u2_reset_i;
    end
  end
  assign x_wr   = xw_q && !stall_o;
  assign x_clip = xc_q && !stall_o;
  assign x_mul  = xm_q && !stall_o;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (x_wr == (x_valid_i && x_write_i) &&
              x_clip == (x_valid_i && x_write_i && (x_op_i == AluShrclip) && !x_reset_i) &&
              x_mul == (x_valid_i && x_write_i && (x_op_i == AluMul) && !x_reset_i))
      else $error("vta_alu_stall: X's registered kind disagrees with its fields");
    end
  end
`endif
  // U2's fields against each index less the offsets, in ACC's index bits (equal exactly when
  // the sums are; no adder lies behind the micro-op buffer). Written out per index: yosys reads
  // casts inside functions only in part.
  logic [LogAccDepth-1:0] ud, us, xd, xs, ed, es, fd, fs;
  assign ud = LogAccDepth'(u2_dst_i);
  assign us = LogAccDepth'(u2_src_i);
  assign xd = LogAccDepth'(hz_xd_i);
  assign xs = LogAccDepth'(hz_xs_i);
  assign ed = LogAccDepth'(hz_ed_i);
  assign es = LogAccDepth'(hz_es_i);
  assign fd = LogAccDepth'(hz_fd_i);
  assign fs = LogAccDepth'(hz_fs_i);
  // Each comparison, with U2's flags folded in (two LUT levels: the bit pairs in threes, then
  // their AND with the flags), goes through a kept level (vta_cut), and so do the terms behind
  // them, so that synthesis maps the count as one more level behind those; left to itself,
  // abc merged the comparisons into the count's multiplexers (eight cells, 3.4-3.5 ns), and
  // terms marked (* keep *) did not hold it (3.1-3.2 ns).
  // The equalities themselves are kept levels too: each group of three bit pairs one LUT
  // (eq), ANDed with U2's flag (itself a kept LUT of registers, beside them) in the next; abc had
  // shared XORs of U2's bits between the three comparisons and mapped each as three LUT and
  // MUXF levels (3.26 ns on the default).
  localparam int unsigned NG = (LogAccDepth + 2) / 3;
  logic u2_rd, u2_rs;
  assign u2_rd = u2_valid_i && u2_write_i;
  assign u2_rs = u2_valid_i && u2_write_i && !u2_use_imm_i;
  // (Flat vectors, comparison 0 lowest: yosys 0.23 reads neither assignment patterns nor
  // arrays of packed arrays.)
  localparam int unsigned L = LogAccDepth;
  logic [6*NG-1:0] eq_w, eq;
  logic [6*L-1:0]  cmp_a, cmp_b;
  assign cmp_a = {us, us, us, ud, ud, ud};
  assign cmp_b = {fs, es, xs, fd, ed, xd};
  for (genvar c = 0; c < 6; c++) begin : g_eq
    for (genvar g = 0; g < NG; g++) begin : g_grp
      localparam int unsigned Lo = c * L + 3 * g;
      localparam int unsigned Hi = c * L + ((3 * g + 2 < L) ? 3 * g + 2 : L - 1);
      assign eq_w[c*NG+g] = cmp_a[Hi:Lo] == cmp_b[Hi:Lo];
    end
  end
  logic u2_rd_c, u2_rs_c;
  vta_cut #(.W(6 * NG + 2)) u_eq_cut (.i({u2_rs, u2_rd, eq_w}), .o({u2_rs_c, u2_rd_c, eq}));
  logic [2:0] hit_d, hit_s, hit_dw, hit_sw;
  assign hit_dw = {u2_rd_c && (&eq[2*NG+:NG]), u2_rd_c && (&eq[NG+:NG]),
                   u2_rd_c && (&eq[0+:NG])};
  assign hit_sw = {u2_rs_c && (&eq[5*NG+:NG]), u2_rs_c && (&eq[4*NG+:NG]),
                   u2_rs_c && (&eq[3*NG+:NG])};
  vta_cut #(.W(6)) u_hit_cut (.i({hit_dw, hit_sw}), .o({hit_d, hit_s}));
  assign reads = hit_d | hit_s;
  // The cycles each one needs: X's 1 (3 after a MUL, 2 after a SHRCLIP), e1's 2 after a MUL
  // and 1 after a SHRCLIP, e2's 1 after a MUL; the count takes the most (need3 .. need1).
  assign need3 = x_mul && reads[0];
  assign need2 = (x_clip && reads[0]) || (e1_mul_q && reads[1]);
  assign need1 = (x_wr && reads[0]) || ((e1_mul_q || e1_clip_q) && reads[1]) ||
                 (e2_mul_q && reads[2]);
  // Built as kept terms (vta_cut) of at most six inputs each, straight from the comparisons
  // (the count is loaded only when it is zero, so nothing stalls and X's flags stand as they
  // are): c3 is need3, chi need3 || need2, ca01 and ca2 make up need3 || need2 || need1 (a
  // MUL or SHRCLIP writes too). Left to abc, the count lay three LUT and MUXF levels behind
  // the comparisons (3.5-3.6 ns); so it is one.
  logic c3, chi, ca01, ca2;
  logic [3:0] c_w;
  assign c_w[0] = xm_q && (hit_d[0] || hit_s[0]);
  assign c_w[1] = (xcm_q && (hit_d[0] || hit_s[0])) || (e1_mul_q && (hit_d[1] || hit_s[1]));
  assign c_w[2] = (xw_q && (hit_d[0] || hit_s[0])) || (e1_cm_q && (hit_d[1] || hit_s[1]));
  assign c_w[3] = e2_mul_q && (hit_d[2] || hit_s[2]);
  vta_cut #(.W(4)) u_c_cut (.i(c_w), .o({ca2, ca01, chi, c3}));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      hz_q      <= 2'd0;
      stall_q   <= 1'b0;
      e1_clip_q <= 1'b0;
      e1_mul_q  <= 1'b0;
      e1_cm_q   <= 1'b0;
      e2_mul_q  <= 1'b0;
    end else begin
      e1_clip_q <= x_clip;
      e1_mul_q  <= x_mul;
      e1_cm_q   <= x_clip || x_mul;
      e2_mul_q  <= e1_mul_q;
      if (hz_q != 2'd0) begin
        hz_q    <= hz_q - 2'd1;
        stall_q <= hz_q[1];
      end else begin
        hz_q    <= {chi, c3 || (!chi && (ca01 || ca2))};
        stall_q <= chi || c3 || ca01 || ca2;
      end
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && hz_q == 2'd0)
      assert (c3 == need3 && chi == (need3 || need2) && (ca01 || ca2) == (need3 || need2 || need1))
      else $error("vta_alu_stall: the count's terms disagree with need3..need1");
    if (rst_ni)
      assert (stall_q == (hz_q != 2'd0)) else $error("vta_alu_stall: the stall flag disagrees");
  end
`endif
  assign stall_o = stall_q;
endmodule

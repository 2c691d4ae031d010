// vta_uop_seq - a micro-op sequencer of the compute module: a copy of the micro-op buffer, the
// loop nest of one GEMM or ALU instruction, and the buffer indices of each micro-op.
//
// The compute module has two of them, one for the GEMM unit and one for the ALU, so that a GEMM
// and an ALU instruction can issue a micro-op each in the same cycle; each keeps its own copy of
// the micro-op buffer (LOAD UOP writes both; a second read port would be the alternative).
// Four stages (docs/hw.md, "Compute pipeline"):
//   C0 issue: walks i < iter_out, j < iter_in, k in [uop_bgn, uop_end) and reads uop[k]; index
//             offsets are running sums, so no multiplier is needed.
//   U1:       the micro-op buffer's array read;
//   U2:       its output register; the offsets are added to the micro-op's fields (dst, src,
//             wgt) into
//   X:        registers, the outputs (x_*), three cycles after the issue.
// A new instruction is accepted in the cycle the previous one issues its last micro-op (last_o),
// so back-to-back instructions of one unit issue one micro-op per cycle.
// With stall_i (the ALU's: a micro-op that reads the destination of one just ahead of it,
// docs/hw.md "Compute pipeline") every stage from C0 to X keeps its micro-op for the cycle and
// nothing leaves X (x_valid_o low); an instruction may still start into an empty C0. The u2_*
// outputs are the micro-op in U2 and its fields, and hz_* the indices of the micro-op in X and
// of those that left X one and two cycles before (e1, e2; hz_f*), each less the offset X will
// add to U2's field: U2's
// field equals one exactly when the sums are equal, so the comparison behind them has no adder
// (registers, worked out a cycle ahead from the offsets' differences). An instruction without
// micro-ops (no iterations, or uop_end <= uop_bgn) issues one bubble with write_o low.
// The tag is whatever the parent needs in its result stage (reset flag, ALU opcode and
// immediate); it rides along with every micro-op.
// Without KeepWgt (the ALU's copy) the buffer stores only the dst and src fields of each
// micro-op, as the ALU never reads the weight index; x_wgt_o then carries the loop offsets
// alone and is left unconnected.
module vta_uop_seq
  import vta_pkg::*;
#(
  parameter int unsigned TagW = 1,
  parameter bit          KeepWgt = 1'b1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // micro-op buffer write port (LOAD UOP; never an entry the current instruction reads)
  input  logic                     uop_we_i,
  input  logic [LogUopDepth-1:0]   uop_waddr_i,
  input  logic [UopBytes*8-1:0]    uop_wdata_i,
  // an instruction starts (only when idle_o or last_o)
  input  logic                     start_i,
  input  logic [GemmUopEndW-1:0]   bgn_i,
  input  logic [GemmUopEndW-1:0]   end_i,
  input  logic [GemmIterOutW-1:0]  iter_out_i,
  input  logic [GemmIterOutW-1:0]  iter_in_i,
  input  logic [UopDstW-1:0]       dfo_i,
  input  logic [UopDstW-1:0]       dfi_i,
  input  logic [UopSrcW-1:0]       sfo_i,
  input  logic [UopSrcW-1:0]       sfi_i,
  input  logic [UopWgtW-1:0]       wfo_i,
  input  logic [UopWgtW-1:0]       wfi_i,
  input  logic                     nop_i,
  // The loops' shape, the parent's registers: {end_i - bgn_i == 1, iter_in_i == 1,
  // iter_out_i == 1, the same three == 2}
  input  logic [5:0]               shape_i,
  input  logic [TagW-1:0]          tag_i,
  input  logic                     stall_i,   // hold C0 to X for this cycle (tie low if unused)
  // C0
  output logic                     issue_o,   // an instruction is issuing (held by a stall too)
  output logic                     adv_o,     // a micro-op leaves C0 this cycle
  output logic                     last_o,    // ... and it is the instruction's last
  output logic [GemmUopEndW-1:0]   bgn_o,     // the micro-op entries it reads: [bgn_o, end_o)
  output logic [GemmUopEndW-1:0]   end_o,
  // X (three cycles after C0)
  output logic                     x_valid_o,
  output logic                     x_write_o,
  output logic                     x_last_o,
  output logic [TagW-1:0]          x_tag_o,
  output logic [UopDstW-1:0]       x_dst_o,
  output logic [UopSrcW-1:0]       x_src_o,
  output logic [UopWgtW-1:0]       x_wgt_o,
  output logic                     busy_o,    // a micro-op in U1, U2 or X
  output logic                     busy_next_o,  // busy_o of the next cycle
  // U2: the micro-op that enters X next, with its X indices
  output logic                     u2_valid_o,
  output logic                     u2_write_o,
  output logic [TagW-1:0]          u2_tag_o,
  output logic [UopDstW-1:0]       u2_dst_o,     // the micro-op's dst field (from the buffer)
  output logic [UopSrcW-1:0]       u2_src_o,     // and src field
  // X's index less U2's dst offset, and less its src offset; the same for e1's
  output logic [UopDstW-1:0]       hz_xd_o,
  output logic [UopSrcW-1:0]       hz_xs_o,
  output logic [UopDstW-1:0]       hz_ed_o,
  output logic [UopSrcW-1:0]       hz_es_o,
  output logic [UopDstW-1:0]       hz_fd_o,
  output logic [UopSrcW-1:0]       hz_fs_o
);
  localparam int unsigned DstW = UopDstW;
  localparam int unsigned SrcW = UopSrcW;
  localparam int unsigned WgtIdxW = UopWgtW;
  localparam int unsigned IterW = GemmIterOutW;
  localparam int unsigned UopIdxW = GemmUopEndW;

  // ---- C0 ----
  logic                issue_q, nop_q;
  logic [TagW-1:0]     tag_q;
  logic [UopIdxW-1:0]  bgn_q, end_q, k_d, k_q;
  logic [IterW-1:0]    i_d, i_q, j_d, j_q;
  logic [DstW-1:0]     dfo_q, dfi_q, drow_d, drow_q, doff_d, doff_q;
  logic [SrcW-1:0]     sfo_q, sfi_q, srow_d, srow_q, soff_d, soff_q;
  logic [WgtIdxW-1:0]  wfo_q, wfi_q, wrow_d, wrow_q, woff_d, woff_q;
  logic k_last, j_last, issue_last, issue_d;
  logic [UopBytes*8-1:0] uop_rdata;

  // Whether each loop is at its last value is a flag worked out one step ahead (issue_last
  // steers the dispatch of the next instruction, whose decision fans out to the whole decode
  // stage): as the counter moves, the flag becomes the flag of its second-to-last value (*_pen),
  // or, where it wraps, whether the loop has one value. The second-to-last flags are worked out
  // the same way a step ahead again: as the counter moves, the comparison of its current value
  // with the bound minus three (counter + 1 == bound - 2), or, where it wraps, whether the loop
  // has two values; so no comparison lies in front of the last flags (the counter against the
  // bound minus two there was 3.17-3.20 ns on the default and block8). The bounds minus three
  // are latched with the instruction, the one- and two-value flags come from the parent.
  logic [UopIdxW-1:0] end_m3_q;
  logic [IterW-1:0]   iter_out_m3_q, iter_in_m3_q, iter_out_m1_q, iter_in_m1_q;
  logic               k_one_q, j_one_q, k_two_q, j_two_q;
  logic               k_one_i, j_one_i, i_one_i, k_two_i, j_two_i, i_two_i;
  assign {k_one_i, j_one_i, i_one_i, k_two_i, j_two_i, i_two_i} = shape_i;
  logic               k_last_q, j_last_q, i_last_q, k_last_d, j_last_d, i_last_d;
  logic               k_pen_q, j_pen_q, i_pen_q, k_pen_d, j_pen_d, i_pen_d;
  // The flags' next values without a start (*_n, from registers: the stall is one too) and
  // with one (the parent's registered flags) are picked by the start, late (the dispatch
  // decision), through a kept level (vta_pick): left to abc, the start went two LUT levels
  // deep into a second-to-last flag (3.35 ns on the default).
  logic               il_n, k_last_n, j_last_n, i_last_n, k_pen_n, j_pen_n, i_pen_n;
  // And issue_last itself is a register (il_q), worked out beside the flags: from the new
  // instruction's fields as one starts (start_i, late: the dispatch decision, picks), else
  // from the flags as they will be. Behind the flags it was a LUT level in front of the
  // dispatch decision, which reads last_o.
  logic               il_q, il_d;
  assign k_last     = k_last_q;
  assign j_last     = j_last_q;
  assign issue_last = il_q;
  assign issue_o    = issue_q;
  assign adv_o      = issue_q && !stall_i;
  assign last_o     = issue_last && !stall_i;
  assign bgn_o      = bgn_q;
  assign end_o      = end_q;

  // The stored word: the whole micro-op, or its dst and src fields only.
  localparam int unsigned StoreW = KeepWgt ? UopBytes * 8 : DstW + SrcW;
  logic [StoreW-1:0] store_wdata, store_rdata;
  if (KeepWgt) begin : g_whole_uop
    assign store_wdata = uop_wdata_i;
    assign uop_rdata   = store_rdata;
  end else begin : g_dst_src
    assign store_wdata = {uop_wdata_i[UopSrcLsb +: SrcW], uop_wdata_i[UopDstLsb +: DstW]};
    always_comb begin
      uop_rdata = '0;
      uop_rdata[UopDstLsb +: DstW] = store_rdata[DstW-1:0];
      uop_rdata[UopSrcLsb +: SrcW] = store_rdata[DstW +: SrcW];
    end
  end

  vta_sram #(.Width(StoreW), .Depth(UopDepth), .OutReg(1'b1)) u_uop_buf (
    .clk_i,
    .we_i   (uop_we_i),
    .waddr_i(uop_waddr_i),
    .wdata_i(store_wdata),
    .re_i   (issue_q && !stall_i),
    .oe_i   (!stall_i),
    .raddr_i(LogUopDepth'(k_q)),
    .rdata_o(store_rdata)
  );

  always_comb begin
    issue_d = issue_q;
    k_d     = k_q;
    i_d     = i_q;
    j_d     = j_q;
    drow_d  = drow_q;
    doff_d  = doff_q;
    srow_d  = srow_q;
    soff_d  = soff_q;
    wrow_d  = wrow_q;
    woff_d  = woff_q;
    k_last_n = k_last_q;
    j_last_n = j_last_q;
    i_last_n = i_last_q;
    k_pen_n  = k_pen_q;
    j_pen_n  = j_pen_q;
    i_pen_n  = i_pen_q;
    il_n     = il_q;
    if (issue_last && !stall_i) issue_d = 1'b0;
    if (issue_q && !issue_last && !stall_i) begin
      if (!k_last) begin
        k_d      = k_q + 1'b1;
        k_last_n = k_pen_q;
        k_pen_n  = (k_q == end_m3_q);
      end else begin
        k_d      = bgn_q;
        k_last_n = k_one_q;
        k_pen_n  = k_two_q;
        if (!j_last) begin
          j_d      = j_q + 1'b1;
          j_last_n = j_pen_q;
          j_pen_n  = (j_q == iter_in_m3_q);
          doff_d = doff_q + dfi_q;
          soff_d = soff_q + sfi_q;
          woff_d = woff_q + wfi_q;
        end else begin
          j_d      = '0;
          j_last_n = j_one_q;
          j_pen_n  = j_two_q;
          i_d      = i_q + 1'b1;
          i_last_n = i_pen_q;
          i_pen_n  = (i_q == iter_out_m3_q);
          drow_d = drow_q + dfo_q;
          srow_d = srow_q + sfo_q;
          wrow_d = wrow_q + wfo_q;
          doff_d = drow_q + dfo_q;
          soff_d = srow_q + sfo_q;
          woff_d = wrow_q + wfo_q;
        end
      end
    end
    if (!stall_i) il_n = issue_d && (nop_q || (k_last_n && j_last_n && i_last_n));
    if (start_i) begin
      issue_d  = 1'b1;
      k_d      = bgn_i;
      i_d     = '0;
      j_d     = '0;
      drow_d  = '0;
      doff_d  = '0;
      srow_d  = '0;
      soff_d  = '0;
      wrow_d  = '0;
      woff_d  = '0;
    end
  end
  vta_pick #(.W(7)) u_flag_pick (
    .sel_i(start_i),
    .a_i  ({nop_i || (k_one_i && j_one_i && i_one_i), k_one_i, j_one_i, i_one_i, k_two_i,
            j_two_i, i_two_i}),
    .b_i  ({il_n, k_last_n, j_last_n, i_last_n, k_pen_n, j_pen_n, i_pen_n}),
    .o_o  ({il_d, k_last_d, j_last_d, i_last_d, k_pen_d, j_pen_d, i_pen_d})
  );

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      issue_q <= 1'b0;
      il_q    <= 1'b0;
      k_last_q <= 1'b0;
      j_last_q <= 1'b0;
      i_last_q <= 1'b0;
      k_pen_q  <= 1'b0;
      j_pen_q  <= 1'b0;
      i_pen_q  <= 1'b0;
      k_q     <= '0;
      i_q     <= '0;
      j_q     <= '0;
      drow_q  <= '0;
      doff_q  <= '0;
      srow_q  <= '0;
      soff_q  <= '0;
      wrow_q  <= '0;
      woff_q  <= '0;
    end else begin
      issue_q <= issue_d;
      il_q    <= il_d;
      k_last_q <= k_last_d;
      j_last_q <= j_last_d;
      i_last_q <= i_last_d;
      k_pen_q  <= k_pen_d;
      j_pen_q  <= j_pen_d;
      i_pen_q  <= i_pen_d;
      k_q     <= k_d;
      i_q     <= i_d;
      j_q     <= j_d;
      drow_q  <= drow_d;
      doff_q  <= doff_d;
      srow_q  <= srow_d;
      soff_q  <= soff_d;
      wrow_q  <= wrow_d;
      woff_q  <= woff_d;
    end
  end

  // The instruction's constants, latched when it starts.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      nop_q      <= nop_i;
      tag_q      <= tag_i;
      bgn_q      <= bgn_i;
      end_q      <= end_i;
      end_m3_q      <= end_i - UopIdxW'(3);
      iter_out_m1_q <= iter_out_i - 1'b1;  // (read by the assertions only)
      iter_in_m1_q  <= iter_in_i - 1'b1;
      iter_out_m3_q <= iter_out_i - IterW'(3);
      iter_in_m3_q  <= iter_in_i - IterW'(3);
      k_one_q       <= k_one_i;
      j_one_q       <= j_one_i;
      k_two_q       <= k_two_i;
      j_two_q       <= j_two_i;
      dfo_q      <= dfo_i;
      dfi_q      <= dfi_i;
      sfo_q      <= sfo_i;
      sfi_q      <= sfi_i;
      wfo_q      <= wfo_i;
      wfi_q      <= wfi_i;
    end
  end

  // ---- U1, U2: the micro-op on its way out of the buffer; X: its indices ----
  logic [1:0]      u_valid_q, u_write_q, u_last_q;
  logic [TagW-1:0] u_tag_q [2];
  logic [DstW-1:0] u_doff_q [2];
  logic [SrcW-1:0] u_soff_q [2];
  logic [WgtIdxW-1:0] u_woff_q [2];
  logic            x_valid_q, x_write_q, x_last_q;
  logic [TagW-1:0] x_tag_q;
  logic [DstW-1:0] x_dst_q;
  logic [SrcW-1:0] x_src_q;
  logic [WgtIdxW-1:0] x_wgt_q;
  // U2's offsets less U1's (dd_q: dst; sd_q: U2's dst offset less U1's src offset), and the
  // hz_* registers
  logic [DstW-1:0] dd_q, hxd_q, hed_q, hfd_q, xd1_q;
  logic [SrcW-1:0] sd_q, hxs_q, hes_q, hfs_q;
  uop_word_t u;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      u_valid_q <= '0;
      x_valid_q <= 1'b0;
    end else if (!stall_i) begin
      u_valid_q <= {u_valid_q[0], issue_q};
      x_valid_q <= u_valid_q[1];
    end
  end
  assign u = uop_rdata;
  logic [DstW-1:0] u2_dst;
  logic [SrcW-1:0] u2_src;
  assign u2_dst = u.dst + u_doff_q[1];
  assign u2_src = u.src + u_soff_q[1];
  always_ff @(posedge clk_i) begin
    if (!stall_i) begin
      u_write_q   <= {u_write_q[0], !nop_q};
      u_last_q    <= {u_last_q[0], issue_last};
      u_tag_q[0]  <= tag_q;
      u_tag_q[1]  <= u_tag_q[0];
      u_doff_q[0] <= doff_q;
      u_doff_q[1] <= u_doff_q[0];
      u_soff_q[0] <= soff_q;
      u_soff_q[1] <= u_soff_q[0];
      u_woff_q[0] <= woff_q;
      u_woff_q[1] <= u_woff_q[0];
      x_write_q   <= u_write_q[1];
      x_last_q    <= u_last_q[1];
      x_tag_q     <= u_tag_q[1];
      x_dst_q     <= u2_dst;
      x_src_q     <= u2_src;
      x_wgt_q     <= u.wgt + u_woff_q[1];
      // After this edge: U2 holds U1's micro-op, X U2's (index u2_dst), e1 X's.
      dd_q        <= u_doff_q[0] - doff_q;
      sd_q        <= SrcW'(u_doff_q[0]) - soff_q;
      hxd_q       <= u.dst + dd_q;               // u2_dst - U1's dst offset
      hxs_q       <= SrcW'(u.dst) + sd_q;        // (SrcW'(u2_dst) - U1's src offset)
      hed_q       <= x_dst_q - u_doff_q[0];
      hes_q       <= SrcW'(x_dst_q) - u_soff_q[0];
    end
  end
  // e2: X's index of the cycle before (xd1_q, every cycle: e2 is the micro-op that left X two
  // cycles before, whether or not the front stalled since) less the offset U2 will hold next
  // cycle (U1's if the front moves, its own if it stalls).
  always_ff @(posedge clk_i) begin
    xd1_q <= x_dst_q;
    hfd_q <= xd1_q - (stall_i ? u_doff_q[1] : u_doff_q[0]);
    hfs_q <= SrcW'(xd1_q) - (stall_i ? u_soff_q[1] : u_soff_q[0]);
  end

  assign x_valid_o = x_valid_q && !stall_i;
  assign x_write_o = x_write_q;
  assign x_last_o  = x_last_q;
  assign x_tag_o   = x_tag_q;
  assign x_dst_o   = x_dst_q;
  assign x_src_o   = x_src_q;
  assign x_wgt_o   = x_wgt_q;
  assign busy_o    = (u_valid_q != '0) || x_valid_q;
  assign busy_next_o = stall_i ? busy_o : (issue_q || (u_valid_q != '0));
  assign u2_valid_o = u_valid_q[1];
  assign u2_write_o = u_write_q[1];
  assign u2_tag_o   = u_tag_q[1];
  assign u2_dst_o   = u.dst;
  assign u2_src_o   = u.src;
  assign hz_xd_o    = hxd_q;
  assign hz_xs_o    = hxs_q;
  assign hz_ed_o    = hed_q;
  assign hz_es_o    = hes_q;
  assign hz_fd_o    = hfd_q;
  assign hz_fs_o    = hfs_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start_i && issue_q && !issue_last))
      else $error("vta_uop_seq: an instruction started while another issues");
      assert (!start_i || (k_one_i == (end_i - bgn_i == UopIdxW'(1)) &&
                           j_one_i == (iter_in_i == IterW'(1)) &&
                           i_one_i == (iter_out_i == IterW'(1)) &&
                           k_two_i == (end_i - bgn_i == UopIdxW'(2)) &&
                           j_two_i == (iter_in_i == IterW'(2)) &&
                           i_two_i == (iter_out_i == IterW'(2))))
      else $error("vta_uop_seq: the start's one- and two-iteration flags disagree with its fields");
      assert (!issue_q || nop_q || ((k_pen_q == (k_q == end_q - UopIdxW'(2))) &&
                                    (j_pen_q == (j_q == iter_in_m1_q - 1'b1)) &&
                                    (i_pen_q == (i_q == iter_out_m1_q - 1'b1))))
      else $error("vta_uop_seq: a loop's second-to-last flag disagrees with its counter");
      assert (!issue_q || nop_q || ((k_last_q == (k_q == end_q - 1'b1)) &&
                                    (j_last_q == (j_q == iter_in_m1_q)) &&
                                    (i_last_q == (i_q == iter_out_m1_q))))
      else $error("vta_uop_seq: a loop's last flag disagrees with its counter");
      assert (il_q == (issue_q && (nop_q || (k_last_q && j_last_q && i_last_q))))
      else $error("vta_uop_seq: the registered last flag disagrees with the loops' flags");
    end
  end
`endif
endmodule

// vta_footprint - the footprint of the instruction in the compute module's decode register (D)
// and its comparison with the footprints of the instruction the other unit runs and of the one
// before it (vta_compute: dual issue).
//
// The footprint is the range of ACC indices an instruction's destinations can take (and its
// vector operand's, for an ALU that reads one): the bounds of its micro-ops (vta_uop_fp keeps
// them per LOAD UOP) plus the loop products (iter_out - 1) * factor_out + (iter_in - 1) *
// factor_in. It is worked out over three cycles after the take (F0 to F2, below) while the
// instruction waits in D, and comes out as registers: fp_done_o (the rest is valid), fp_ok_o
// (usable: no wrap past the buffer, destinations in one bank), the indices, and compat's flags
// ca_o and cb_o (D's instruction and the other unit's, and the one before it, cannot interfere).
module vta_footprint
  import vta_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // the compute queue: its head (D takes it when take_i) and the element becoming the head
  // (the head register takes it with head_load_i)
  input  logic                         head_valid_i,
  input  logic                         take_i,
  input  logic [InsnBytes*8-1:0]       head_i,
  input  logic                         head_load_i,
  input  logic                         head_fill_i,  // head_load_i without a take
  input  logic [InsnBytes*8-1:0]       next_i,
  // D: the instruction held, whether it leaves in this cycle, its kind
  input  logic                         d_valid_i,
  input  logic                         d_fire_i,
  input  logic [InsnBytes*8-1:0]       d_i,
  input  logic                         uop_insn_i,  // a GEMM or an ALU instruction
  input  logic                         is_alu_i,
  input  logic                         nop_i,       // it has no micro-ops to issue
  // the compute-side loads: one is running (loading_i) and completes in this cycle (ld_done_i);
  // the micro-op loads' writes for vta_uop_fp
  input  logic                         loading_i,
  input  logic                         ld_done_i,
  input  logic                         uld_start_i,
  input  logic [LogUopDepth-1:0]       uld_base_i,
  input  logic                         uop_we_i,
  input  logic [LogUopDepth-1:0]       uop_waddr_i,
  input  logic [UopBytes*8-1:0]        uop_wdata_i,
  input  logic                         uld_done_i,
  // the other unit's footprints: of the instruction it runs (o_*) and of the one before (op_*)
  input  logic                         o_ok_i,
  input  logic                         o_nop_i,
  input  logic                         o_src_i,
  input  logic [LogAccDepth-1:0]       o_dlo_i,
  input  logic [LogAccDepth-1:0]       o_dhi_i,
  input  logic [LogAccDepth-1:0]       o_slo_i,
  input  logic [LogAccDepth-1:0]       o_shi_i,
  input  logic                         op_ok_i,
  input  logic                         op_nop_i,
  input  logic                         op_src_i,
  input  logic [LogAccDepth-1:0]       op_dlo_i,
  input  logic [LogAccDepth-1:0]       op_dhi_i,
  input  logic [LogAccDepth-1:0]       op_slo_i,
  input  logic [LogAccDepth-1:0]       op_shi_i,
  // D's footprint (all registers)
  output logic                         fp_done_o,
  output logic                         fp_ok_o,
  output logic                         fp_nop_o,
  output logic                         fp_src_o,
  output logic [LogAccDepth-1:0]       fp_dlo_o,
  output logic [LogAccDepth-1:0]       fp_dhi_o,
  output logic [LogAccDepth-1:0]       fp_slo_o,
  output logic [LogAccDepth-1:0]       fp_shi_o,
  // compat's flags against the other unit's instruction (ca_o) and the one before (cb_o), and
  // the disjointness the two are made of (cw_*_o, for the caller's assertions)
  output logic                         ca_o,
  output logic                         cb_o,
  output logic                         cw_run_o,
  output logic                         cw_prev_o
);
  localparam int unsigned DstW = UopDstW;
  localparam int unsigned SrcW = UopSrcW;
  localparam int unsigned IterW = GemmIterOutW;
  localparam int unsigned BankW = LogAccDepth - 1;  // index bits within an ACC bank
  // Footprint arithmetic: max index + (iter_out-1)*factor + (iter_in-1)*factor, unwrapped.
  localparam int unsigned IdxW = (DstW > SrcW) ? DstW : SrcW;
  localparam int unsigned FpW = IterW + IdxW + 2;

  // D's instruction as a GEMM and as an ALU (they share the loop and micro-op range fields).
  /* verilator lint_off UNUSEDSIGNAL */
  gemm_insn_t hg;
  alu_insn_t  ha;
  /* verilator lint_on UNUSEDSIGNAL */
  assign hg = d_i;
  assign ha = d_i;

  logic                fp_hit, fp_bsel;
  logic [DstW-1:0]     fp_dmin [2];  // the record selected (0) and the one being committed (1)
  logic [DstW-1:0]     fp_dmax [2];
  logic [SrcW-1:0]     fp_smin [2];
  logic [SrcW-1:0]     fp_smax [2];
  logic [DstW-1:0]     f_dfo, f_dfi;
  logic [SrcW-1:0]     f_sfo, f_sfi;
  logic [FpW-1:0]      f_io, f_ii;
  logic                f_src, f_ok, fp_now;
  logic [LogAccDepth-1:0] f_dlo, f_dhi_i, f_slo, f_shi_i;
  // Of the instruction in D, worked out (fp_done_q) from its fourth cycle there at the earliest:
  logic                fp_done_q, fp_ok_q, fp_nop_q, fp_src_q;
  logic [LogAccDepth-1:0] fp_dlo_q, fp_dhi_q, fp_slo_q, fp_shi_q;

  // The instruction at the queue's head, which D takes when take_i is set.
  /* verilator lint_off UNUSEDSIGNAL */
  gemm_insn_t ng;  // only the loop, factor and micro-op range fields are read
  alu_insn_t  na;
  /* verilator lint_on UNUSEDSIGNAL */
  logic       n_alu;
  // The element becoming the head (the queue's head register takes it with head_load_i).
  /* verilator lint_off UNUSEDSIGNAL */
  gemm_insn_t xg;  // only the loop and micro-op range fields are read
  alu_insn_t  xa;
  /* verilator lint_on UNUSEDSIGNAL */
  assign xg = next_i;
  assign xa = next_i;

  vta_uop_fp u_fp (
    .clk_i,
    .rst_ni,
    .ld_start_i(uld_start_i),
    .ld_base_i (uld_base_i),
    .we_i      (uop_we_i),
    .waddr_i   (uop_waddr_i),
    .wdata_i   (uop_wdata_i),
    .ld_done_i (uld_done_i),
    .bgn_i     (LogUopDepth'(hg.uop_bgn)),
    .end_i     ((LogUopDepth + 1)'(hg.uop_end)),
    .take_i    (take_i),
    .nbgn_i    (LogUopDepth'(ng.uop_bgn)),
    .nend_i    ((LogUopDepth + 1)'(ng.uop_end)),
    .head_fill_i(head_fill_i),
    .hbgn_i    (LogUopDepth'(xg.uop_bgn)),
    .hend_i    ((LogUopDepth + 1)'(xg.uop_end)),
    .hit_o     (fp_hit),
    .bsel_o    (fp_bsel),
    .b_dmin_o  (fp_dmin[1]),
    .b_dmax_o  (fp_dmax[1]),
    .b_smin_o  (fp_smin[1]),
    .b_smax_o  (fp_smax[1]),
    .s_dmin_o  (fp_dmin[0]),
    .s_dmax_o  (fp_dmax[0]),
    .s_smin_o  (fp_smin[0]),
    .s_smax_o  (fp_smax[0])
  );

  // The loop products depend on the instruction alone: they are multiplied as it enters D
  // (from the queue's head), so the cycle that works the footprint out only adds them to the
  // record's bounds and compares. They are (iter_out - 1) * fo + (iter_in - 1) * fi, taken as
  // iter_out * fo + iter_in * fi (f_*raw_q) less fo + fi (f_*fs_q), so that no subtraction
  // lies in front of the multipliers in the take cycle.
  localparam int unsigned SW = LogAccDepth + 1;  // a top index and whether it passes the end
  logic [FpW-1:0] f_draw_q, f_sraw_q, f_dlim_q, f_slim_q;
  logic [SW-1:0]  f_dfs_q, f_sfs_q;  // the top indices need the low bits only
  assign ng    = head_i;
  assign na    = head_i;
  assign n_alu = (ng.opcode == OpAlu);
  assign f_dfo = n_alu ? DstW'(na.dst_factor_out) : DstW'(ng.dst_factor_out);
  assign f_dfi = n_alu ? DstW'(na.dst_factor_in) : DstW'(ng.dst_factor_in);
  assign f_sfo = SrcW'(na.src_factor_out);
  assign f_sfi = SrcW'(na.src_factor_in);
  assign f_io  = FpW'(ng.iter_out);  // meaningful when the instruction has micro-ops
  assign f_ii  = FpW'(ng.iter_in);
  // The four products are those of the element becoming the queue's head, registered as it
  // does (the DSP slices' M registers, from next_i), so the take only adds them (the slices'
  // post-adders, P registers): multiplied in the take cycle, from the head register through a
  // slice and its cascade into the next, they took 4.2 ns.
  logic       x_alu;
  logic [DstW-1:0] x_dfo, x_dfi;
  logic [FpW-1:0]  p_dfo_q, p_dfi_q, p_sfo_q, p_sfi_q;
  assign x_alu = (xg.opcode == OpAlu);
  assign x_dfo = x_alu ? DstW'(xa.dst_factor_out) : DstW'(xg.dst_factor_out);
  assign x_dfi = x_alu ? DstW'(xa.dst_factor_in) : DstW'(xg.dst_factor_in);
  always_ff @(posedge clk_i) begin
    if (head_load_i) begin
      p_dfo_q <= FpW'(xg.iter_out) * FpW'(x_dfo);
      p_dfi_q <= FpW'(xg.iter_in) * FpW'(x_dfi);
      p_sfo_q <= FpW'(xg.iter_out) * FpW'(SrcW'(xa.src_factor_out));
      p_sfi_q <= FpW'(xg.iter_in) * FpW'(SrcW'(xa.src_factor_in));
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && head_valid_i) begin
      assert (p_dfo_q == f_io * FpW'(f_dfo) && p_dfi_q == f_ii * FpW'(f_dfi) &&
              p_sfo_q == f_io * FpW'(f_sfo) && p_sfi_q == f_ii * FpW'(f_sfi))
      else $error("vta_compute: the footprint's products beside the queue's head disagree");
    end
  end
`endif
  // The products are taken with the instruction into the slices' P registers (p2_*_q) and
  // added in F0, the cycle after the take, which the footprint spends in vta_uop_fp anyway:
  // added in the take cycle from the slices' outputs without P registers (1.8 ns after the
  // clock), the sums took 3.4 ns. (Split with carry select, vta_add_split.)
  logic [FpW-1:0] f_draw, f_sraw;
  logic [FpW-1:0] p2_dfo_q, p2_dfi_q, p2_sfo_q, p2_sfi_q;
  logic           take_q;  // F0: D's instruction was taken in the cycle before
  always_ff @(posedge clk_i) begin
    if (!rst_ni) take_q <= 1'b0;
    else take_q <= take_i;
  end
  always_ff @(posedge clk_i) begin
    if (take_i) begin
      p2_dfo_q <= p_dfo_q;
      p2_dfi_q <= p_dfi_q;
      p2_sfo_q <= p_sfo_q;
      p2_sfi_q <= p_sfi_q;
    end
  end
  vta_add_split #(.W(FpW), .Lo(FpW / 2)) u_f_draw (.a_i(p2_dfo_q), .b_i(p2_dfi_q), .sum_o(f_draw));
  vta_add_split #(.W(FpW), .Lo(FpW / 2)) u_f_sraw (.a_i(p2_sfo_q), .b_i(p2_sfi_q), .sum_o(f_sraw));
  always_ff @(posedge clk_i) begin
    if (take_q) begin
      f_draw_q <= f_draw;
      f_sraw_q <= f_sraw;
    end
  end
  always_ff @(posedge clk_i) begin
    if (take_i) begin
      f_dfs_q  <= SW'(FpW'(f_dfo) + FpW'(f_dfi));
      f_sfs_q  <= SW'(FpW'(f_sfo) + FpW'(f_sfi));
      f_dlim_q <= FpW'(AccDepth) + FpW'(f_dfo) + FpW'(f_dfi);
      f_slim_q <= FpW'(AccDepth) + FpW'(f_sfo) + FpW'(f_sfi);
    end
  end
  // The bounds' checks, with prod = raw - fs (raw >= fs when there are iterations; every sum
  // fits FpW): prod < AccDepth is raw < AccDepth + fs (f_*fits, a comparison of two registers
  // from the take). Given that and max < AccDepth, max + prod < 2 AccDepth, so its low SW bits,
  // max + raw - fs worked out in SW bits (one carry chain behind a row of 3:2 compressors,
  // add_sub), are exact: their top bit says whether the top index passes the buffer's end,
  // the bit below it the top index's bank, and the rest is the top index. So each check is one
  // narrow carry chain behind the bounds and the multipliers' registers; before, a wide sum and
  // a wide comparison lay one behind the other there.
  // Worked out for both records uop_fp may name (the one selected at take, the one a load
  // commits in this cycle) side by side, and picked by fp_bsel after the sums and comparisons.
  logic [SW-1:0]  c_dsum [2];  // max + raw - fs, SW bits
  logic [SW-1:0]  c_ssum [2];
  logic [LogAccDepth-1:0] c_dhi [2];  // the top indices
  logic [LogAccDepth-1:0] c_shi [2];
  // c_pre: every term of a record's check but the carry chains' bits, kept (* keep *) so that
  // synthesis maps it as written: abc takes a carry chain's output as arriving at time zero
  // and otherwise folds the chains' bits into the first of several LUT levels.
  (* keep *) logic [1:0] c_pre;
  logic           f_dfits, f_sfits;
  // a + b - c as one carry chain behind a row of 3:2 compressors (a + b + ~c + 1, the 1 in the
  // carry word's free low bit).
  function automatic logic [SW-1:0] add_sub(logic [SW-1:0] a, logic [SW-1:0] b,
                                            logic [SW-1:0] c);
    logic [SW-1:0] nc, sum;
    logic [SW-2:0] maj;  // the carries out of bit i, worth bit i + 1 (the top's: none)
    nc      = ~c;
    sum     = a ^ b ^ nc;
    maj     = (a[SW-2:0] & b[SW-2:0]) | (a[SW-2:0] & nc[SW-2:0]) | (b[SW-2:0] & nc[SW-2:0]);
    add_sub = sum + {maj, 1'b1};
  endfunction
  // A bound at or past the buffer's end (the micro-op fields may be wider than an index).
  function automatic logic past_end(logic [FpW-1:0] v);
    past_end = |(v >> LogAccDepth);
  endfunction
  assign f_dfits  = f_draw_q < f_dlim_q;
  assign f_sfits  = f_sraw_q < f_slim_q;
  assign f_src = is_alu_i && !ha.use_imm;
  always_comb begin
    for (int k = 0; k < 2; k++) begin
      c_dsum[k] = add_sub(SW'(LogAccDepth'(fp_dmax[k])), SW'(f_draw_q), f_dfs_q);
      c_ssum[k] = add_sub(SW'(LogAccDepth'(fp_smax[k])), SW'(f_sraw_q), f_sfs_q);
      c_dhi[k]  = c_dsum[k][LogAccDepth-1:0];
      c_shi[k]  = c_ssum[k][LogAccDepth-1:0];
      c_pre[k]  = f_dfits && !past_end(FpW'(fp_dmax[k])) &&
                  (!f_src || (f_sfits && !past_end(FpW'(fp_smax[k])) &&
                              !past_end(FpW'(fp_smin[k]))));
    end
  end
  assign f_dlo   = LogAccDepth'(fp_dmin[fp_bsel]);
  assign f_dhi_i = c_dhi[fp_bsel];
  assign f_slo   = LogAccDepth'(fp_smin[fp_bsel]);
  assign f_shi_i = c_shi[fp_bsel];

  // The footprint is worked out over three cycles, F0 to F2. In F0 (the cycle after the take)
  // vta_uop_fp picks the selected record's bounds. F1 (the cycle after that, and every cycle
  // after it while the instruction waits in D) adds each record's bounds to the
  // loop products and registers the carry chains' bits per record (fa_*_q) with the record's
  // pick (fp_bsel, late: a load's last write) and whether there is one (fp_hit); F2 picks
  // the record and combines them into fp_ok_q and the dispatch's flags (cw_*_q, compat's
  // ca_q and cb_q). In one cycle the chains' bits, the pick and the combination lay behind
  // the lookup's OR and the chains (3.4-3.7 ns on the default). The two extra cycles are
  // hidden behind the instruction before in D nearly always (ResNet-18: about 200 cycles in
  // 7.2 million by the SystemC model, which counts them: sim/sc, "the footprint is worked out
  // in D").
  //
  // Not while a load may still change the records (in the cycle it completes the lookup sees
  // the table after it), nor for an instruction arriving now. The inputs of F1 and F2 stand
  // while D holds the instruction: the records change only by a LOAD UOP, which D would hold,
  // and the units' footprints only when D's instruction starts. fp_ok_q is read only with
  // fp_done_q (dispatch), set in the same cycle for the same instruction, so it need not wait
  // for the dispatch decision (d_fire_i) itself: that kept the token counters, the footprint
  // comparisons and the lookup on one path.
  // F0, the instruction's first cycle in D (take_q), is skipped: vta_uop_fp works the
  // selected record's bounds out in it, and the loop products' sums are added in it.
  assign fp_now = d_valid_i && !take_q && !d_fire_i && (!loading_i || ld_done_i);
  logic [1:0] fa_pre_q, fa_dtop_q, fa_dbank_q, fa_stop_q, fa_ok;
  logic       fa_q, fa_hit_q, fa_bsel_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) fa_q <= 1'b0;
    else fa_q <= fp_now;
  end
  always_ff @(posedge clk_i) begin
    fa_hit_q  <= fp_hit;
    fa_bsel_q <= fp_bsel;
    for (int k = 0; k < 2; k++) begin
      fa_pre_q[k]   <= c_pre[k];
      fa_dtop_q[k]  <= c_dsum[k][LogAccDepth];
      fa_dbank_q[k] <= fp_dmin[k][BankW] == c_dsum[k][BankW];
      fa_stop_q[k]  <= c_ssum[k][LogAccDepth];
    end
  end
  // Indices that wrap past the buffer, or destinations in both banks: no usable footprint.
  always_comb begin
    for (int k = 0; k < 2; k++) begin
      fa_ok[k] = fa_pre_q[k] && !fa_dtop_q[k] && (!fp_src_q || !fa_stop_q[k]) && fa_dbank_q[k];
    end
  end
  // (F2: fp_nop_q and fp_src_q are F1's nop_i and f_src.)
  assign f_ok = uop_insn_i && (fp_nop_q || (fa_hit_q && fa_ok[fa_bsel_q]));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      fp_done_q <= 1'b0;
      fp_ok_q   <= 1'b0;
    end else begin
      fp_done_q <= fa_q && fp_now;
      fp_ok_q   <= f_ok;
    end
  end
  always_ff @(posedge clk_i) begin
    fp_nop_q <= nop_i;
    fp_src_q <= f_src;
    fp_dlo_q <= f_dlo;
    fp_dhi_q <= f_dhi_i;
    fp_slo_q <= f_slo;
    fp_shi_q <= f_shi_i;
  end

  // The instruction in D against one footprint of the other unit: both known, and either one
  // without micro-ops or destinations in different banks and neither reading what the other
  // writes. The comparisons (disjoint) are made in the cycle the footprint is worked out, from
  // the values fp_*_q take, against the other unit's footprints, and registered (cw_*_q): those
  // cannot change before D's instruction leaves (only a start, which is D's, changes them), and
  // fp_done_q, which dispatch needs, is set only when nothing started in that cycle. So the
  // dispatch decision reads flags, not comparators.
  // D's indices are those of both records uop_fp may name (b: the one selected at take, the
  // one committed in this cycle), each top index only its low bits (max + prod, the truncated
  // f_*hi_i: exact whenever D's footprint is usable, f_ok, the only case the flags are read
  // in). Every check is made for both records and against both units' footprints, and the
  // record (fp_bsel, late: a load's last write) picked after the comparisons (the other unit's
  // footprints come in picked): picking first put a multiplexer in front of each sum, and yosys merges the
  // sums of two operands picked by one select into one sum behind the multiplexer.
  // D's top index below another footprint's low one, top < lo with top = max + raw - fs, is
  // the sign of max + raw - fs - lo in SW bits (exact whenever the top index is usable: top <
  // AccDepth, lo < AccDepth): one carry chain behind two rows of 3:2 compressors (max + raw +
  // ~fs + ~lo + 2, the 2 as the carry words' free low bits), not the top index's sum and then a
  // comparison behind it.
  function automatic logic top_below(logic [SW-1:0] mx, logic [SW-1:0] raw, logic [SW-1:0] fs,
                                     logic [LogAccDepth-1:0] lo);
    logic [SW-1:0] lo_w, nfs, nlo, s1, c1, s2, y;
    logic [SW-2:0] m1, m2;
    lo_w = {1'b0, lo};  // (a cast to SW inside a function is more than yosys 0.23 reads)
    nfs  = ~fs;
    nlo  = ~lo_w;
    s1  = mx ^ raw ^ nfs;
    m1  = (mx[SW-2:0] & raw[SW-2:0]) | (mx[SW-2:0] & nfs[SW-2:0]) | (raw[SW-2:0] & nfs[SW-2:0]);
    c1  = {m1, 1'b1};
    s2  = s1 ^ c1 ^ nlo;
    m2  = (s1[SW-2:0] & c1[SW-2:0]) | (s1[SW-2:0] & nlo[SW-2:0]) | (c1[SW-2:0] & nlo[SW-2:0]);
    y   = s2 + {m2, 1'b1};
    top_below = y[SW-1];
  endfunction
  // The three conditions of disjointness (all must hold): different banks, D's destinations
  // apart from the other's sources, D's sources apart from the other's destinations.
  function automatic logic [2:0] disjoint(logic b, logic src, logic [LogAccDepth-1:0] dlo,
                                          logic [LogAccDepth-1:0] dhi,
                                          logic [LogAccDepth-1:0] slo,
                                          logic [LogAccDepth-1:0] shi);
    logic [LogAccDepth-1:0] my_dlo, my_slo;
    my_dlo      = LogAccDepth'(fp_dmin[b]);
    my_slo      = LogAccDepth'(fp_smin[b]);
    disjoint[0] = my_dlo[BankW] != dlo[BankW];
    disjoint[1] = !src ||
                  top_below(SW'(LogAccDepth'(fp_dmax[b])), SW'(f_draw_q), f_dfs_q, slo) ||
                  (shi < my_dlo);
    disjoint[2] = !f_src ||
                  top_below(SW'(LogAccDepth'(fp_smax[b])), SW'(f_sraw_q), f_sfs_q, dlo) ||
                  (dhi < my_slo);
  endfunction
  logic cw_run_q, cw_prev_q, cw_run_f, cw_prev_f, ca_q, cb_q;
  // F1, per record (the one selected at [2:0], the one being committed at [5:3]; flat: yosys
  // 0.23 neither assigns unpacked arrays whole nor reads packed two-dimensional ones)
  logic [5:0] cw_run, cw_prev, cw_run_a_q, cw_prev_a_q;
  always_comb begin
    for (int b = 0; b < 2; b++) begin
      cw_run[3*b +: 3]  = disjoint(1'(b), o_src_i, o_dlo_i, o_dhi_i, o_slo_i, o_shi_i);
      cw_prev[3*b +: 3] = disjoint(1'(b), op_src_i, op_dlo_i, op_dhi_i, op_slo_i, op_shi_i);
    end
  end
  always_ff @(posedge clk_i) begin
    cw_run_a_q  <= cw_run;
    cw_prev_a_q <= cw_prev;
  end
  // F2: the record picked, and the flags of compat (below) that do not change while D holds
  // the instruction (the other unit's footprints change only when D's instruction starts).
  assign cw_run_f  = fa_bsel_q ? &cw_run_a_q[5:3] : &cw_run_a_q[2:0];
  assign cw_prev_f = fa_bsel_q ? &cw_prev_a_q[5:3] : &cw_prev_a_q[2:0];
  always_ff @(posedge clk_i) begin
    cw_run_q  <= cw_run_f;
    cw_prev_q <= cw_prev_f;
    ca_q      <= f_ok && o_ok_i && (fp_nop_q || o_nop_i || cw_run_f);
    cb_q      <= f_ok && op_ok_i && (fp_nop_q || op_nop_i || cw_prev_f);
  end

  assign fp_done_o = fp_done_q;
  assign fp_ok_o   = fp_ok_q;
  assign fp_nop_o  = fp_nop_q;
  assign fp_src_o  = fp_src_q;
  assign fp_dlo_o  = fp_dlo_q;
  assign fp_dhi_o  = fp_dhi_q;
  assign fp_slo_o  = fp_slo_q;
  assign fp_shi_o  = fp_shi_q;
  assign ca_o      = ca_q;
  assign cb_o      = cb_q;
  assign cw_run_o  = cw_run_q;
  assign cw_prev_o = cw_prev_q;
endmodule

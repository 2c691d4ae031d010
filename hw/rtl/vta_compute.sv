// vta_compute - the compute module: micro-op, ACC and ACC_8BIT loads, GEMM, ALU and FINISH.
//
// GEMM and ALU instructions run through a three-stage pipeline that accepts one micro-op per
// cycle, across instruction boundaries:
//   C0 issue:  the loop nest (i < iter_out, j < iter_in, k in [uop_bgn, uop_end)) walks the
//              micro-ops and reads the micro-op buffer; index offsets are kept as running sums,
//              so no multiplier is needed.
//   C1 index:  adds the offsets to the micro-op fields and reads INP, WGT and two ACC elements
//              (the ACC buffer is kept as two identical copies so that the destination and a
//              vector source are read in the same cycle).
//   C2 result: GEMM multiply-accumulate or ALU operation; writes ACC (both copies) and the
//              narrowed OUT element.
// A micro-op in C1 reads the buffer in the same cycle as the write of the one ahead of it in C2,
// and so sees the old value; a forwarding register holding the last ACC write supplies the new
// one (accumulating into the same element on consecutive cycles is the common case of a
// reduction loop). Dependency pops happen when an instruction is decoded; its pushes ride
// down the pipeline with its last micro-op and fire when that micro-op has written its results,
// so a GEMM followed by a GEMM never waits for the pipeline to drain. LOADs and FINISH do wait
// for the pipeline to drain, because they write the buffers the pipeline reads.
module vta_compute
  import vta_pkg::*;
(
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // command queue
  input  logic                            cmd_valid_i,
  output logic                            cmd_ready_o,
  input  logic [InsnBytes*8-1:0]          cmd_data_i,
  // tokens
  input  logic                            tok_from_load_i,
  output logic                            tok_pop_load_o,
  input  logic                            tok_from_store_i,
  output logic                            tok_pop_store_o,
  output logic                            tok_push_load_o,   // compute->load
  output logic                            tok_push_store_o,  // compute->store
  // AXI read client (micro-op and ACC loads)
  output logic                            ar_valid_o,
  input  logic                            ar_ready_i,
  output logic [AxiAddrWidth-1:0]         ar_addr_o,
  output logic [7:0]                      ar_len_o,
  input  logic                            r_valid_i,
  output logic                            r_ready_o,
  input  logic [BusWidth-1:0]             r_data_i,
  // INP and WGT buffer read ports
  output logic                            inp_re_o,
  output logic [LogInpDepth-1:0]          inp_raddr_o,
  input  logic [InpElemBytes*8-1:0]       inp_rdata_i,
  output logic                            wgt_re_o,
  output logic [LogWgtDepth-1:0]          wgt_raddr_o,
  input  logic [WgtElemBytes*8-1:0]       wgt_rdata_i,
  // OUT buffer write port
  output logic                            out_we_o,
  output logic [LogOutDepth-1:0]          out_waddr_o,
  output logic [OutElemBytes*8-1:0]       out_wdata_o,
  // status
  output logic                            finish_o,          // FINISH executed (pulse)
  output logic                            busy_o,
  output logic                            stall_o,
  output logic                            insn_done_o,
  output logic                            gemm_uop_o,
  output logic                            mac_uop_o,         // a GEMM micro-op without reset
  output logic                            alu_uop_o
);
  localparam int unsigned AccW = AccLanes * AccWidth;
  localparam int unsigned DstW = UopDstW;
  localparam int unsigned SrcW = UopSrcW;
  localparam int unsigned WgtIdxW = UopWgtW;
  localparam int unsigned IterW = GemmIterOutW;
  localparam int unsigned UopIdxW = GemmUopEndW;

  typedef enum logic [1:0] {
    Idle,
    Issue,
    Loading
  } mode_e;

  // ---- decode of the queue head ----
  memory_insn_t hm;
  gemm_insn_t   hg;
  alu_insn_t    ha;
  logic is_gemm, is_alu, is_load, is_finish, known_load, tokens_ok, pipe_empty;
  logic dec_uop_op, dec_mem_op, dec_fire, zero_uops;

  assign hm = cmd_data_i;
  assign hg = cmd_data_i;
  assign ha = cmd_data_i;
  assign is_gemm   = (hm.opcode == OpGemm);
  assign is_alu    = (hm.opcode == OpAlu);
  assign is_load   = (hm.opcode == OpLoad);
  assign is_finish = (hm.opcode == OpFinish);
  assign known_load = is_load && (hm.memory_type == MemUop || hm.memory_type == MemAcc ||
                                  hm.memory_type == MemAcc8bit);
  assign tokens_ok = (!hm.pop_prev || tok_from_load_i) && (!hm.pop_next || tok_from_store_i);
  // GEMM and ALU share the layout of every field up to iter_in (ISA.md section 2).
  assign zero_uops = (hg.uop_end <= UopIdxW'(hg.uop_bgn)) || (hg.iter_out == '0) ||
                     (hg.iter_in == '0);

  // ---- C0: issue state ----
  mode_e mode_d, mode_q;
  logic                    alu_q, reset_q, use_imm_q, nop_q, push_prev_q, push_next_q;
  logic [AluAluOpcodeW-1:0] alu_op_q;
  logic [AluImmW-1:0]      imm_q;
  logic [UopIdxW-1:0]      bgn_q, end_q, k_d, k_q;
  logic [IterW-1:0]        iter_out_q, iter_in_q, i_d, i_q, j_d, j_q;
  logic [DstW-1:0]         dfo_q, dfi_q, drow_d, drow_q, doff_d, doff_q;
  logic [SrcW-1:0]         sfo_q, sfi_q, srow_d, srow_q, soff_d, soff_q;
  logic [WgtIdxW-1:0]      wfo_q, wfi_q, wrow_d, wrow_q, woff_d, woff_q;
  logic k_last, j_last, i_last, issue, issue_last, free;

  assign k_last     = (k_q == end_q - 1'b1);
  assign j_last     = (j_q == iter_in_q - 1'b1);
  assign i_last     = (i_q == iter_out_q - 1'b1);
  assign issue      = (mode_q == Issue);
  assign issue_last = issue && (nop_q || (k_last && j_last && i_last));
  assign free       = (mode_q == Idle) || issue_last;

  // ---- C1 / C2 pipeline registers ----
  logic                    c1_valid_q, c1_write_q, c1_last_q, c1_alu_q, c1_reset_q, c1_use_imm_q;
  logic                    c1_push_prev_q, c1_push_next_q;
  logic [AluAluOpcodeW-1:0] c1_op_q;
  logic [AluImmW-1:0]      c1_imm_q;
  logic [DstW-1:0]         c1_doff_q;
  logic [SrcW-1:0]         c1_soff_q;
  logic [WgtIdxW-1:0]      c1_woff_q;
  logic                    c2_valid_q, c2_write_q, c2_last_q, c2_alu_q, c2_reset_q, c2_use_imm_q;
  logic                    c2_push_prev_q, c2_push_next_q;
  logic [AluAluOpcodeW-1:0] c2_op_q;
  logic [AluImmW-1:0]      c2_imm_q;
  logic [LogAccDepth-1:0]  c2_a_q, c2_s_q;

  assign pipe_empty = !issue && !c1_valid_q && !c2_valid_q;
  assign dec_uop_op = free && cmd_valid_i && (is_gemm || is_alu) && tokens_ok;
  // Everything else (loads, FINISH, and opcodes that do not belong here) needs a drained pipe.
  assign dec_mem_op = (mode_q == Idle) && pipe_empty && cmd_valid_i && !(is_gemm || is_alu) &&
                      tokens_ok;
  assign dec_fire   = dec_uop_op || dec_mem_op;
  assign cmd_ready_o     = dec_fire;
  assign tok_pop_load_o  = dec_fire && hm.pop_prev;
  assign tok_pop_store_o = dec_fire && hm.pop_next;

  // ---- micro-op buffer and the compute-side loads ----
  logic uop_we, acc_ld_we, l2d_busy, l2d_done, l2d_waiting, ld_start;
  logic [LogUopDepth-1:0] uop_waddr;
  logic [UopBytes*8-1:0]  uop_wdata, uop_rdata;
  memory_insn_t ld_q;
  logic [3:0] ld_log_elem;
  logic beat_valid, beat_ready, elem_valid, elem_take, wr_valid, wr_is_elem;
  logic [LogBusBytes-1:0] beat_lo, beat_hi;
  logic [MemorySramBaseW-1:0] wr_addr;
  logic uop_gb_ready, acc_gb_ready, a8_gb_ready, uop_gb_valid, acc_gb_valid, a8_gb_valid;
  logic [UopBytes*8-1:0]       uop_elem;
  logic [AccElemBytes*8-1:0]   acc_elem;
  logic [Acc8bitElemBytes*8-1:0] a8_elem;
  logic [AccW-1:0] a8_wide, ld_acc_data;
  logic ld_is_uop, ld_is_acc, ld_is_a8;

  assign ld_start = dec_mem_op && known_load;
  always_comb begin
    ld_log_elem = 4'(LogUopElemBytes);
    if (hm.memory_type == MemAcc) ld_log_elem = 4'(LogAccElemBytes);
    if (hm.memory_type == MemAcc8bit) ld_log_elem = 4'(LogAcc8bitElemBytes);
  end
  assign ld_is_uop = (ld_q.memory_type == MemUop);
  assign ld_is_acc = (ld_q.memory_type == MemAcc);
  assign ld_is_a8  = (ld_q.memory_type == MemAcc8bit);

  // One load at a time (a LOAD waits for the pipeline to drain and the next instruction for the
  // load), so the DMA needs no queue and its instruction is ld_q throughout.
  vta_load_2d #(
    .Depth(1)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i         (ld_start),
    .ready_o         (),
    .insn_i          (hm),
    .log_elem_bytes_i(ld_log_elem),
    .busy_o          (l2d_busy),
    .done_o          (l2d_done),
    .done_insn_o     (),
    .waiting_o       (l2d_waiting),
    .ar_valid_o,
    .ar_ready_i,
    .ar_addr_o,
    .ar_len_o,
    .r_valid_i,
    .r_ready_o,
    .beat_valid_o    (beat_valid),
    .beat_ready_i    (beat_ready),
    .beat_lo_o       (beat_lo),
    .beat_hi_o       (beat_hi),
    .beat_type_o     (),
    .elem_valid_i    (elem_valid),
    .elem_take_o     (elem_take),
    .wr_valid_o      (wr_valid),
    .wr_addr_o       (wr_addr),
    .wr_is_elem_o    (wr_is_elem),
    .wr_insn_o       ()
  );

  vta_rd_gearbox #(.ElemBytes(UopBytes), .BusBytes(BusBytes)) u_uop_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && ld_is_uop),
    .in_ready_o (uop_gb_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(uop_gb_valid),
    .out_ready_i(elem_take && ld_is_uop),
    .out_data_o (uop_elem)
  );

  vta_rd_gearbox #(.ElemBytes(AccElemBytes), .BusBytes(BusBytes)) u_acc_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && ld_is_acc),
    .in_ready_o (acc_gb_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(acc_gb_valid),
    .out_ready_i(elem_take && ld_is_acc),
    .out_data_o (acc_elem)
  );

  vta_rd_gearbox #(.ElemBytes(Acc8bitElemBytes), .BusBytes(BusBytes)) u_a8_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && ld_is_a8),
    .in_ready_o (a8_gb_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(a8_gb_valid),
    .out_ready_i(elem_take && ld_is_a8),
    .out_data_o (a8_elem)
  );

  always_comb begin
    beat_ready = ld_is_uop ? uop_gb_ready : (ld_is_acc ? acc_gb_ready : a8_gb_ready);
    elem_valid = ld_is_uop ? uop_gb_valid : (ld_is_acc ? acc_gb_valid : a8_gb_valid);
    // ACC_8BIT: each narrow lane is sign-extended to an ACC lane.
    for (int l = 0; l < AccLanes; l++) begin
      a8_wide[l*AccWidth+:AccWidth] = AccWidth'($signed(a8_elem[l*Acc8Width+:Acc8Width]));
    end
  end

  assign uop_we      = wr_valid && ld_is_uop;
  assign uop_waddr   = LogUopDepth'(wr_addr);
  assign uop_wdata   = wr_is_elem ? uop_elem : '0;
  assign acc_ld_we   = wr_valid && !ld_is_uop;
  assign ld_acc_data = !wr_is_elem ? '0 : (ld_is_acc ? acc_elem : a8_wide);

  vta_sram #(.Width(UopBytes * 8), .Depth(UopDepth)) u_uop_buf (
    .clk_i,
    .we_i   (uop_we),
    .waddr_i(uop_waddr),
    .wdata_i(uop_wdata),
    .re_i   (issue),
    .raddr_i(LogUopDepth'(k_q)),
    .rdata_o(uop_rdata)
  );

  // ---- C0 next state ----
  always_comb begin
    mode_d = mode_q;
    k_d    = k_q;
    i_d    = i_q;
    j_d    = j_q;
    drow_d = drow_q;
    doff_d = doff_q;
    srow_d = srow_q;
    soff_d = soff_q;
    wrow_d = wrow_q;
    woff_d = woff_q;
    if (issue_last) mode_d = Idle;
    if (mode_q == Loading && l2d_done) mode_d = Idle;
    if (issue && !issue_last) begin
      if (!k_last) begin
        k_d = k_q + 1'b1;
      end else begin
        k_d = bgn_q;
        if (!j_last) begin
          j_d    = j_q + 1'b1;
          doff_d = doff_q + dfi_q;
          soff_d = soff_q + sfi_q;
          woff_d = woff_q + wfi_q;
        end else begin
          j_d    = '0;
          i_d    = i_q + 1'b1;
          drow_d = drow_q + dfo_q;
          srow_d = srow_q + sfo_q;
          wrow_d = wrow_q + wfo_q;
          doff_d = drow_q + dfo_q;
          soff_d = srow_q + sfo_q;
          woff_d = wrow_q + wfo_q;
        end
      end
    end
    if (dec_uop_op) begin
      mode_d = Issue;
      k_d    = UopIdxW'(hg.uop_bgn);
      i_d    = '0;
      j_d    = '0;
      drow_d = '0;
      doff_d = '0;
      srow_d = '0;
      soff_d = '0;
      wrow_d = '0;
      woff_d = '0;
    end
    if (ld_start) mode_d = Loading;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mode_q      <= Idle;
      k_q         <= '0;
      i_q         <= '0;
      j_q         <= '0;
      drow_q      <= '0;
      doff_q      <= '0;
      srow_q      <= '0;
      soff_q      <= '0;
      wrow_q      <= '0;
      woff_q      <= '0;
      alu_q       <= 1'b0;
      reset_q     <= 1'b0;
      use_imm_q   <= 1'b0;
      nop_q       <= 1'b0;
      push_prev_q <= 1'b0;
      push_next_q <= 1'b0;
      alu_op_q    <= '0;
      imm_q       <= '0;
      bgn_q       <= '0;
      end_q       <= '0;
      iter_out_q  <= '0;
      iter_in_q   <= '0;
      dfo_q       <= '0;
      dfi_q       <= '0;
      sfo_q       <= '0;
      sfi_q       <= '0;
      wfo_q       <= '0;
      wfi_q       <= '0;
      ld_q        <= '0;
    end else begin
      mode_q <= mode_d;
      k_q    <= k_d;
      i_q    <= i_d;
      j_q    <= j_d;
      drow_q <= drow_d;
      doff_q <= doff_d;
      srow_q <= srow_d;
      soff_q <= soff_d;
      wrow_q <= wrow_d;
      woff_q <= woff_d;
      if (dec_uop_op) begin
        alu_q       <= is_alu;
        reset_q     <= hg.reset_reg;
        use_imm_q   <= is_alu && ha.use_imm;
        nop_q       <= zero_uops;
        push_prev_q <= hg.push_prev;
        push_next_q <= hg.push_next;
        alu_op_q    <= ha.alu_opcode;
        imm_q       <= ha.imm;
        bgn_q       <= UopIdxW'(hg.uop_bgn);
        end_q       <= hg.uop_end;
        iter_out_q  <= hg.iter_out;
        iter_in_q   <= hg.iter_in;
        dfo_q       <= DstW'(is_alu ? ha.dst_factor_out : hg.dst_factor_out);
        dfi_q       <= DstW'(is_alu ? ha.dst_factor_in : hg.dst_factor_in);
        sfo_q       <= is_alu ? SrcW'(ha.src_factor_out) : SrcW'(hg.src_factor_out);
        sfi_q       <= is_alu ? SrcW'(ha.src_factor_in) : SrcW'(hg.src_factor_in);
        wfo_q       <= is_alu ? '0 : WgtIdxW'(hg.wgt_factor_out);
        wfi_q       <= is_alu ? '0 : WgtIdxW'(hg.wgt_factor_in);
      end
      if (ld_start) ld_q <= hm;
    end
  end

  // ---- C1: indices and buffer reads ----
  uop_word_t u;
  logic [DstW-1:0] a1;
  logic [SrcW-1:0] x1;
  logic [WgtIdxW-1:0] w1;
  assign u  = uop_rdata;
  assign a1 = u.dst + c1_doff_q;
  assign x1 = u.src + c1_soff_q;
  assign w1 = u.wgt + c1_woff_q;

  logic [AccW-1:0] acc_a_rdata, acc_b_rdata;
  logic            acc_we;
  logic [LogAccDepth-1:0] acc_waddr;
  logic [AccW-1:0] acc_wdata, c2_result;

  assign inp_re_o    = c1_valid_q;
  assign inp_raddr_o = LogInpDepth'(x1);
  assign wgt_re_o    = c1_valid_q;
  assign wgt_raddr_o = LogWgtDepth'(w1);

  vta_sram #(.Width(AccW), .Depth(AccDepth)) u_acc_dst (
    .clk_i,
    .we_i   (acc_we),
    .waddr_i(acc_waddr),
    .wdata_i(acc_wdata),
    .re_i   (c1_valid_q),
    .raddr_i(LogAccDepth'(a1)),
    .rdata_o(acc_a_rdata)
  );

  vta_sram #(.Width(AccW), .Depth(AccDepth)) u_acc_src (
    .clk_i,
    .we_i   (acc_we),
    .waddr_i(acc_waddr),
    .wdata_i(acc_wdata),
    .re_i   (c1_valid_q),
    .raddr_i(LogAccDepth'(x1)),
    .rdata_o(acc_b_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c1_valid_q <= 1'b0;
      c2_valid_q <= 1'b0;
    end else begin
      c1_valid_q <= issue;
      c2_valid_q <= c1_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    c1_write_q     <= !nop_q;
    c1_last_q      <= issue_last;
    c1_alu_q       <= alu_q;
    c1_reset_q     <= reset_q;
    c1_use_imm_q   <= use_imm_q;
    c1_push_prev_q <= push_prev_q;
    c1_push_next_q <= push_next_q;
    c1_op_q        <= alu_op_q;
    c1_imm_q       <= imm_q;
    c1_doff_q      <= doff_q;
    c1_soff_q      <= soff_q;
    c1_woff_q      <= woff_q;
    c2_write_q     <= c1_write_q;
    c2_last_q      <= c1_last_q;
    c2_alu_q       <= c1_alu_q;
    c2_reset_q     <= c1_reset_q;
    c2_use_imm_q   <= c1_use_imm_q;
    c2_push_prev_q <= c1_push_prev_q;
    c2_push_next_q <= c1_push_next_q;
    c2_op_q        <= c1_op_q;
    c2_imm_q       <= c1_imm_q;
    c2_a_q         <= LogAccDepth'(a1);
    c2_s_q         <= LogAccDepth'(x1);
  end

  // ---- C2: forwarding, arithmetic, writes ----
  logic            fwd_valid_d, fwd_valid_q;
  logic [LogAccDepth-1:0] fwd_addr_q;
  logic [AccW-1:0] fwd_data_q, dst_val, src_val, gemm_res, alu_res;
  logic            c2_wr;

  assign dst_val = (fwd_valid_q && fwd_addr_q == c2_a_q) ? fwd_data_q : acc_a_rdata;
  assign src_val = (fwd_valid_q && fwd_addr_q == c2_s_q) ? fwd_data_q : acc_b_rdata;

  vta_gemm u_gemm (
    .inp_i(inp_rdata_i),
    .wgt_i(wgt_rdata_i),
    .acc_i(dst_val),
    .acc_o(gemm_res)
  );

  vta_alu u_alu (
    .op_i     (c2_op_q),
    .use_imm_i(c2_use_imm_q),
    .imm_i    (c2_imm_q),
    .dst_i    (dst_val),
    .src_i    (src_val),
    .res_o    (alu_res)
  );

  assign c2_wr     = c2_valid_q && c2_write_q;
  assign c2_result = c2_reset_q ? '0 : (c2_alu_q ? alu_res : gemm_res);
  assign acc_we    = c2_wr || acc_ld_we;
  assign acc_waddr = c2_wr ? c2_a_q : LogAccDepth'(wr_addr);
  assign acc_wdata = c2_wr ? c2_result : ld_acc_data;

  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      out_wdata_o[l*OutWidth+:OutWidth] = c2_result[l*AccWidth+:OutWidth];
    end
  end
  assign out_we_o    = c2_wr;
  assign out_waddr_o = LogOutDepth'(c2_a_q);

  // A load into ACC makes the forwarded value stale.
  always_comb begin
    fwd_valid_d = fwd_valid_q;
    if (c2_wr) fwd_valid_d = 1'b1;
    if (acc_ld_we) fwd_valid_d = 1'b0;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fwd_valid_q <= 1'b0;
    else fwd_valid_q <= fwd_valid_d;
  end
  always_ff @(posedge clk_i) begin
    if (c2_wr) begin
      fwd_addr_q <= c2_a_q;
      fwd_data_q <= c2_result;
    end
  end

  // ---- completion, tokens, status ----
  logic mem_done;
  // Non-GEMM/ALU instructions complete when decoded (FINISH, no-ops) or when their load is done.
  assign mem_done = (dec_mem_op && !known_load) || (mode_q == Loading && l2d_done);
  assign tok_push_load_o  = (c2_valid_q && c2_last_q && c2_push_prev_q) ||
                            (dec_mem_op && !known_load && hm.push_prev) ||
                            (mode_q == Loading && l2d_done && ld_q.push_prev);
  assign tok_push_store_o = (c2_valid_q && c2_last_q && c2_push_next_q) ||
                            (dec_mem_op && !known_load && hm.push_next) ||
                            (mode_q == Loading && l2d_done && ld_q.push_next);
  assign finish_o    = dec_mem_op && is_finish;
  assign insn_done_o = (c2_valid_q && c2_last_q) || mem_done;
  assign gemm_uop_o  = c2_wr && !c2_alu_q;
  assign mac_uop_o   = c2_wr && !c2_alu_q && !c2_reset_q;
  assign alu_uop_o   = c2_wr && c2_alu_q;
  assign busy_o      = (mode_q != Idle) || c1_valid_q || c2_valid_q || l2d_busy;
  assign stall_o     = (cmd_valid_i && !tokens_ok && (mode_q == Idle)) ||
                       (mode_q == Idle && cmd_valid_i && !(is_gemm || is_alu) && !pipe_empty) ||
                       l2d_waiting;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(c2_wr && acc_ld_we)) else $error("vta_compute: ACC write port conflict");
      assert (!(ld_start && !pipe_empty)) else $error("vta_compute: load with a busy pipeline");
    end
  end
`endif
endmodule

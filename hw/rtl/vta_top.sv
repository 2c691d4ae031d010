// vta_top - the accelerator: fetch, load, compute and store with their command and token
// queues, the on-chip buffers, one AXI4 memory master and the AXI4-Lite control slave.
//
// Dataflow (ISA.md section 4): fetch streams instructions from DRAM into three command queues;
// load fills INP and WGT, compute owns the micro-op and ACC buffers and writes OUT, store drains
// OUT to DRAM. The modules synchronise only through the four token semaphores. The INP, WGT and
// OUT buffers sit here because two modules use each (one writes, the other reads). A run is
// complete when every instruction has been routed and executed and every module is idle; the
// control slave then raises ap_done (and the interrupt, when enabled).
module vta_top
  import vta_pkg::*;
#(
  parameter int unsigned CmdQueueDepth = 512  // the published design's command queue depth
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // AXI4-Lite control slave
  input  logic                    s_axil_awvalid_i,
  output logic                    s_axil_awready_o,
  input  logic [7:0]              s_axil_awaddr_i,
  input  logic                    s_axil_wvalid_i,
  output logic                    s_axil_wready_o,
  input  logic [31:0]             s_axil_wdata_i,
  input  logic [3:0]              s_axil_wstrb_i,
  output logic                    s_axil_bvalid_o,
  input  logic                    s_axil_bready_i,
  output logic [1:0]              s_axil_bresp_o,
  input  logic                    s_axil_arvalid_i,
  output logic                    s_axil_arready_o,
  input  logic [7:0]              s_axil_araddr_i,
  output logic                    s_axil_rvalid_o,
  input  logic                    s_axil_rready_i,
  output logic [31:0]             s_axil_rdata_o,
  output logic [1:0]              s_axil_rresp_o,
  output logic                    interrupt_o,
  // AXI4 memory master (INCR bursts, full-width beats)
  output logic                    m_axi_arvalid_o,
  input  logic                    m_axi_arready_i,
  output logic [AxiAddrWidth-1:0] m_axi_araddr_o,
  output logic [7:0]              m_axi_arlen_o,
  output logic [2:0]              m_axi_arsize_o,
  output logic [1:0]              m_axi_arburst_o,
  output logic [1:0]              m_axi_arid_o,
  input  logic                    m_axi_rvalid_i,
  output logic                    m_axi_rready_o,
  input  logic [BusWidth-1:0]     m_axi_rdata_i,
  input  logic                    m_axi_rlast_i,
  input  logic [1:0]              m_axi_rresp_i,
  input  logic [1:0]              m_axi_rid_i,
  output logic                    m_axi_awvalid_o,
  input  logic                    m_axi_awready_i,
  output logic [AxiAddrWidth-1:0] m_axi_awaddr_o,
  output logic [7:0]              m_axi_awlen_o,
  output logic [2:0]              m_axi_awsize_o,
  output logic [1:0]              m_axi_awburst_o,
  output logic [1:0]              m_axi_awid_o,
  output logic                    m_axi_wvalid_o,
  input  logic                    m_axi_wready_i,
  output logic [BusWidth-1:0]     m_axi_wdata_o,
  output logic [BusBytes-1:0]     m_axi_wstrb_o,
  output logic                    m_axi_wlast_o,
  input  logic                    m_axi_bvalid_i,
  output logic                    m_axi_bready_o,
  input  logic [1:0]              m_axi_bresp_i,
  input  logic [1:0]              m_axi_bid_i
);
  localparam int unsigned InsnW = InsnBytes * 8;

  // ---- reset ----
  // Every flip-flop resets synchronously from this one register, so rst_ni reaches no logic
  // path (an asynchronous clear put rst_ni, through the flip-flops' CLR->Q arcs, at the head of
  // the longest paths the static timing estimate reported). Its fan-out is every module's
  // reset: max_fanout lets the implementation tool replicate it (yosys keeps one copy).
  (* max_fanout = 256 *) logic rst_nq;
  always_ff @(posedge clk_i) rst_nq <= rst_ni;

  // ---- control ----
  logic start, done, fetch_done;
  logic [31:0] insn_count;
  logic [AxiAddrWidth-1:0] insn_addr;
  logic [2:0] busy, stall, insn_done;
  logic gemm_uop, mac_uop, alu_uop, dual_uop, finish, compute_pending;

  vta_ctrl #(.AddrW(AxiAddrWidth)) u_ctrl (
    .clk_i,
    .rst_ni(rst_nq),
    .s_awvalid_i (s_axil_awvalid_i),
    .s_awready_o (s_axil_awready_o),
    .s_awaddr_i  (s_axil_awaddr_i),
    .s_wvalid_i  (s_axil_wvalid_i),
    .s_wready_o  (s_axil_wready_o),
    .s_wdata_i   (s_axil_wdata_i),
    .s_wstrb_i   (s_axil_wstrb_i),
    .s_bvalid_o  (s_axil_bvalid_o),
    .s_bready_i  (s_axil_bready_i),
    .s_bresp_o   (s_axil_bresp_o),
    .s_arvalid_i (s_axil_arvalid_i),
    .s_arready_o (s_axil_arready_o),
    .s_araddr_i  (s_axil_araddr_i),
    .s_rvalid_o  (s_axil_rvalid_o),
    .s_rready_i  (s_axil_rready_i),
    .s_rdata_o   (s_axil_rdata_o),
    .s_rresp_o   (s_axil_rresp_o),
    .interrupt_o,
    .start_o     (start),
    .insn_count_o(insn_count),
    .insn_addr_o (insn_addr),
    .done_i      (done),
    .busy_i      (busy),
    .stall_i     (stall),
    .insn_done_i (insn_done),
    .gemm_uop_i  (gemm_uop),
    .mac_uop_i   (mac_uop),
    .alu_uop_i   (alu_uop),
    .dual_uop_i  (dual_uop),
    .finish_i    (finish),
    .fetch_done_i(fetch_done)
  );

  // ---- read arbitration: 0 fetch, 1 load, 2 compute ----
  logic [2:0] ar_valid, ar_ready, r_valid, r_ready;
  logic [3*AxiAddrWidth-1:0] ar_addr;
  logic [3*8-1:0] ar_len;

  vta_axi_rd_arb #(.N(3), .AddrW(AxiAddrWidth), .IdW(2)) u_rd_arb (
    .clk_i,
    .rst_ni(rst_nq),
    .ar_valid_i  (ar_valid),
    .ar_ready_o  (ar_ready),
    .ar_addr_i   (ar_addr),
    .ar_len_i    (ar_len),
    .r_valid_o   (r_valid),
    .r_ready_i   (r_ready),
    .m_ar_valid_o(m_axi_arvalid_o),
    .m_ar_ready_i(m_axi_arready_i),
    .m_ar_addr_o (m_axi_araddr_o),
    .m_ar_len_o  (m_axi_arlen_o),
    .m_ar_id_o   (m_axi_arid_o),
    .m_r_valid_i (m_axi_rvalid_i),
    .m_r_ready_o (m_axi_rready_o),
    .m_r_id_i    (m_axi_rid_i)
  );

  assign m_axi_arsize_o  = 3'(LogBusBytes);
  assign m_axi_arburst_o = 2'b01;  // INCR
  assign m_axi_awsize_o  = 3'(LogBusBytes);
  assign m_axi_awburst_o = 2'b01;
  assign m_axi_awid_o    = 2'd3;

  // ---- fetch and the command queues ----
  logic [InsnW-1:0] fetch_insn, lq_data, cq_data, sq_data;
  logic f_load_valid, f_load_ready, f_comp_valid, f_comp_ready, f_store_valid, f_store_ready;
  logic lq_valid, lq_ready, cq_valid, cq_ready, sq_valid, sq_ready;
  logic lq_next_load, cq_next_load, sq_next_load, cq_next_fill;
  logic [InsnW-1:0] lq_next, cq_next, sq_next;
  logic [$clog2(CmdQueueDepth+1)-1:0] lq_count, cq_count, sq_count;

  vta_fetch u_fetch (
    .clk_i,
    .rst_ni(rst_nq),
    .start_i        (start),
    .insn_addr_i    (insn_addr),
    .insn_count_i   (insn_count),
    .done_o         (fetch_done),
    .ar_valid_o     (ar_valid[0]),
    .ar_ready_i     (ar_ready[0]),
    .ar_addr_o      (ar_addr[0*AxiAddrWidth+:AxiAddrWidth]),
    .ar_len_o       (ar_len[0*8+:8]),
    .r_valid_i      (r_valid[0]),
    .r_ready_o      (r_ready[0]),
    .r_data_i       (m_axi_rdata_i),
    .load_valid_o   (f_load_valid),
    .load_ready_i   (f_load_ready),
    .compute_valid_o(f_comp_valid),
    .compute_ready_i(f_comp_ready),
    .store_valid_o  (f_store_valid),
    .store_ready_i  (f_store_ready),
    .insn_o         (fetch_insn)
  );

  // The load queue keeps the element behind its head in a register: vta_load works out the DMA's
  // byte addresses from the element the head takes next (head_next_o).
  vta_fifo #(.Width(InsnW), .Depth(CmdQueueDepth), .Prefetch(1'b1)) u_load_q (
    .clk_i, .rst_ni(rst_nq),
    .in_valid_i (f_load_valid), .in_ready_o (f_load_ready), .in_data_i (fetch_insn),
    .out_valid_o(lq_valid), .out_ready_i(lq_ready), .out_data_o(lq_data), .count_o(lq_count),
    .head_load_o(lq_next_load), .head_next_o(lq_next), .head_fill_o()
  );
  // The compute queue too: vta_compute keeps a LOAD's extent beside the head.
  vta_fifo #(.Width(InsnW), .Depth(CmdQueueDepth), .Prefetch(1'b1)) u_compute_q (
    .clk_i, .rst_ni(rst_nq),
    .in_valid_i (f_comp_valid), .in_ready_o (f_comp_ready), .in_data_i (fetch_insn),
    .out_valid_o(cq_valid), .out_ready_i(cq_ready), .out_data_o(cq_data), .count_o(cq_count),
    .head_load_o(cq_next_load), .head_next_o(cq_next), .head_fill_o(cq_next_fill)
  );
  // And the store queue: vta_store keeps the first burst's page and partial beats beside the head.
  vta_fifo #(.Width(InsnW), .Depth(CmdQueueDepth), .Prefetch(1'b1)) u_store_q (
    .clk_i, .rst_ni(rst_nq),
    .in_valid_i (f_store_valid), .in_ready_o (f_store_ready), .in_data_i (fetch_insn),
    .out_valid_o(sq_valid), .out_ready_i(sq_ready), .out_data_o(sq_data), .count_o(sq_count),
    .head_load_o(sq_next_load), .head_next_o(sq_next), .head_fill_o()
  );

  // ---- token semaphores ----
  logic l2c_push, l2c_pop, l2c_avail, c2l_push, c2l_pop, c2l_avail;
  logic c2s_push, c2s_pop, c2s_avail, s2c_push, s2c_pop, s2c_avail;

  vta_sem u_l2c (.clk_i, .rst_ni(rst_nq), .clear_i(start), .push_i(l2c_push), .pop_i(l2c_pop),
                 .avail_o(l2c_avail), .count_o());
  vta_sem u_c2l (.clk_i, .rst_ni(rst_nq), .clear_i(start), .push_i(c2l_push), .pop_i(c2l_pop),
                 .avail_o(c2l_avail), .count_o());
  vta_sem u_c2s (.clk_i, .rst_ni(rst_nq), .clear_i(start), .push_i(c2s_push), .pop_i(c2s_pop),
                 .avail_o(c2s_avail), .count_o());
  vta_sem u_s2c (.clk_i, .rst_ni(rst_nq), .clear_i(start), .push_i(s2c_push), .pop_i(s2c_pop),
                 .avail_o(s2c_avail), .count_o());

  // ---- buffers shared by two modules ----
  logic inp_we, inp_re, wgt_we, wgt_re, out_g_we, out_a_we, out_re;
  logic [LogInpDepth-1:0] inp_waddr, inp_raddr;
  logic [LogWgtDepth-1:0] wgt_waddr, wgt_raddr;
  logic [LogOutDepth-1:0] out_g_waddr, out_a_waddr, out_raddr;
  logic [InpElemBytes*8-1:0] inp_wdata, inp_rdata;
  logic [WgtElemBytes*8-1:0] wgt_wdata, wgt_rdata;
  logic [OutElemBytes*8-1:0] out_g_wdata, out_a_wdata, out_rdata;

  vta_sram #(.Width(InpElemBytes * 8), .Depth(InpDepth), .OutReg(1'b1)) u_inp_buf (
    .clk_i, .we_i(inp_we), .waddr_i(inp_waddr), .wdata_i(inp_wdata),
    .re_i(inp_re), .oe_i(1'b1), .raddr_i(inp_raddr), .rdata_o(inp_rdata)
  );
  vta_sram #(.Width(WgtElemBytes * 8), .Depth(WgtDepth), .OutReg(1'b1)) u_wgt_buf (
    .clk_i, .we_i(wgt_we), .waddr_i(wgt_waddr), .wdata_i(wgt_wdata),
    .re_i(wgt_re), .oe_i(1'b1), .raddr_i(wgt_raddr), .rdata_o(wgt_rdata)
  );
  // OUT: written by compute's GEMM unit and ALU (in different banks when both write), read by
  // store.
  // The store reads OUT through the block RAM's output register (two cycles): written
  // straight into the store's element queue, the array's clock-to-output delay (2.55 ns of the
  // timing check's 3.0) was that queue's longest path.
  vta_sram_2w #(.Width(OutElemBytes * 8), .Depth(OutDepth), .OutReg(1'b1)) u_out_buf (
    .clk_i,
    .we0_i(out_g_we), .waddr0_i(out_g_waddr), .wdata0_i(out_g_wdata),
    .we1_i(out_a_we), .waddr1_i(out_a_waddr), .wdata1_i(out_a_wdata),
    .re_i(out_re), .raddr_i(out_raddr), .rdata_o(out_rdata)
  );

  // ---- the three modules ----
  vta_load u_load (
    .clk_i,
    .rst_ni(rst_nq),
    .cmd_valid_i       (lq_valid),
    .cmd_ready_o       (lq_ready),
    .cmd_data_i        (lq_data),
    .cmd_next_load_i   (lq_next_load),
    .cmd_next_i        (lq_next),
    .tok_from_compute_i(c2l_avail),
    .tok_pop_o         (c2l_pop),
    .tok_push_o        (l2c_push),
    .ar_valid_o        (ar_valid[1]),
    .ar_ready_i        (ar_ready[1]),
    .ar_addr_o         (ar_addr[1*AxiAddrWidth+:AxiAddrWidth]),
    .ar_len_o          (ar_len[1*8+:8]),
    .r_valid_i         (r_valid[1]),
    .r_ready_o         (r_ready[1]),
    .r_data_i          (m_axi_rdata_i),
    .inp_we_o          (inp_we),
    .inp_waddr_o       (inp_waddr),
    .inp_wdata_o       (inp_wdata),
    .wgt_we_o          (wgt_we),
    .wgt_waddr_o       (wgt_waddr),
    .wgt_wdata_o       (wgt_wdata),
    .busy_o            (busy[0]),
    .stall_o           (stall[0]),
    .insn_done_o       (insn_done[0])
  );

  vta_compute u_compute (
    .clk_i,
    .rst_ni(rst_nq),
    .cmd_valid_i     (cq_valid),
    .cmd_ready_o     (cq_ready),
    .cmd_data_i      (cq_data),
    .cmd_next_load_i (cq_next_load),
    .cmd_next_fill_i (cq_next_fill),
    .cmd_next_i      (cq_next),
    .tok_from_load_i (l2c_avail),
    .tok_pop_load_o  (l2c_pop),
    .tok_from_store_i(s2c_avail),
    .tok_pop_store_o (s2c_pop),
    .tok_push_load_o (c2l_push),
    .tok_push_store_o(c2s_push),
    .ar_valid_o      (ar_valid[2]),
    .ar_ready_i      (ar_ready[2]),
    .ar_addr_o       (ar_addr[2*AxiAddrWidth+:AxiAddrWidth]),
    .ar_len_o        (ar_len[2*8+:8]),
    .r_valid_i       (r_valid[2]),
    .r_ready_o       (r_ready[2]),
    .r_data_i        (m_axi_rdata_i),
    .inp_re_o        (inp_re),
    .inp_raddr_o     (inp_raddr),
    .inp_rdata_i     (inp_rdata),
    .wgt_re_o        (wgt_re),
    .wgt_raddr_o     (wgt_raddr),
    .wgt_rdata_i     (wgt_rdata),
    .out_g_we_o      (out_g_we),
    .out_g_waddr_o   (out_g_waddr),
    .out_g_wdata_o   (out_g_wdata),
    .out_a_we_o      (out_a_we),
    .out_a_waddr_o   (out_a_waddr),
    .out_a_wdata_o   (out_a_wdata),
    .finish_o        (finish),
    .busy_o          (busy[1]),
    .pending_o       (compute_pending),
    .stall_o         (stall[1]),
    .insn_done_o     (insn_done[1]),
    .gemm_uop_o      (gemm_uop),
    .mac_uop_o       (mac_uop),
    .alu_uop_o       (alu_uop),
    .dual_o          (dual_uop)
  );

  vta_store u_store (
    .clk_i,
    .rst_ni(rst_nq),
    .cmd_valid_i       (sq_valid),
    .cmd_ready_o       (sq_ready),
    .cmd_data_i        (sq_data),
    .cmd_next_load_i   (sq_next_load),
    .cmd_next_i        (sq_next),
    .tok_from_compute_i(c2s_avail),
    .tok_pop_o         (c2s_pop),
    .tok_push_o        (s2c_push),
    .out_re_o          (out_re),
    .out_raddr_o       (out_raddr),
    .out_rdata_i       (out_rdata),
    .aw_valid_o        (m_axi_awvalid_o),
    .aw_ready_i        (m_axi_awready_i),
    .aw_addr_o         (m_axi_awaddr_o),
    .aw_len_o          (m_axi_awlen_o),
    .w_valid_o         (m_axi_wvalid_o),
    .w_ready_i         (m_axi_wready_i),
    .w_data_o          (m_axi_wdata_o),
    .w_strb_o          (m_axi_wstrb_o),
    .w_last_o          (m_axi_wlast_o),
    .b_valid_i         (m_axi_bvalid_i),
    .b_ready_o         (m_axi_bready_o),
    .busy_o            (busy[2]),
    .stall_o           (stall[2]),
    .insn_done_o       (insn_done[2])
  );

  assign done = fetch_done && !lq_valid && !cq_valid && !sq_valid && !compute_pending &&
                (busy == '0);

  // Response codes and RLAST are not needed for control: bounds errors are reported by the
  // memory model, and the data side counts beats itself.
  logic unused_resp;
  assign unused_resp = ^{m_axi_rlast_i, m_axi_rresp_i, m_axi_bresp_i, m_axi_bid_i, lq_count,
                         cq_count, sq_count};
endmodule

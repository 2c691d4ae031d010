// vta_load - the load module: LOAD instructions of the INP and WGT buffers.
//
// Takes instructions from the load command queue in order and hands them to vta_load_2d, which
// accepts up to LoadAhead of them before the first has written its last element: the read
// addresses of the next instructions go out while the current one's data is still arriving, so
// short loads do not each pay a memory latency. An instruction pops its compute->load token (if
// pop_next) when it is accepted, before any of its reads (compute has finished with the buffer
// entries it will overwrite, and with any DRAM a store wrote for it); it pushes its load->compute
// token (if push_next) after its last buffer write, in order. The two gearboxes turn bus beats
// into INP and WGT elements: beats go to the gearbox of the instruction they belong to, buffer
// writes take from the gearbox of the instruction being written.
//
// The DMA's transfer in bytes (base, stride and row length, each the instruction's field
// shifted by the element size of its memory type) is worked out from the element the command
// queue's head register is about to take (cmd_next_i, cmd_next_load_i) and registered beside
// it, so the memory-type decode and the shifts do not lie in front of the DMA's first burst
// (the design's longest path when they were worked out from the head).
module vta_load
  import vta_pkg::*;
#(
  // Instructions accepted beyond the one being written. Measured with tests/sim/test_rtl.c's
  // small-load GEMM (8 LOADs of 64 bytes per tile, DRAM latency 32) and the concurrent random
  // programs of test_rtl_diff.c (cycles, lower is better):
  //   LoadAhead       0 (before)   2        4        8
  //   small loads     24,049       11,423   11,071   11,039   (utilisation 0.34 -> 0.72)
  //   random, default 234,151      216,695  223,428  231,604
  //   random, 256-bit  64,983       67,290   70,289   72,634
  // Beyond 2 the gain is small and the cost grows: prefetched beats that the write sequencer
  // cannot take yet hold the shared read-data channel, delaying compute's loads and fetch.
  parameter int unsigned LoadAhead = 2
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // command queue
  input  logic                        cmd_valid_i,
  output logic                        cmd_ready_o,
  input  logic [InsnBytes*8-1:0]      cmd_data_i,
  input  logic                        cmd_next_load_i,  // the queue's head takes cmd_next_i
  input  logic [InsnBytes*8-1:0]      cmd_next_i,
  // tokens
  input  logic                        tok_from_compute_i,  // compute->load token available
  output logic                        tok_pop_o,
  output logic                        tok_push_o,          // load->compute
  // AXI read client
  output logic                        ar_valid_o,
  input  logic                        ar_ready_i,
  output logic [AxiAddrWidth-1:0]     ar_addr_o,
  output logic [7:0]                  ar_len_o,
  input  logic                        r_valid_i,
  output logic                        r_ready_o,
  input  logic [BusWidth-1:0]         r_data_i,
  // buffer write ports
  output logic                        inp_we_o,
  output logic [LogInpDepth-1:0]      inp_waddr_o,
  output logic [InpElemBytes*8-1:0]   inp_wdata_o,
  output logic                        wgt_we_o,
  output logic [LogWgtDepth-1:0]      wgt_waddr_o,
  output logic [WgtElemBytes*8-1:0]   wgt_wdata_o,
  // status
  output logic                        busy_o,
  output logic                        stall_o,
  output logic                        insn_done_o
);
  localparam int unsigned A = AxiAddrWidth;
  memory_insn_t head, dma_insn, done_insn, wr_insn;
  logic      l2d_ready, l2d_busy, l2d_done, l2d_waiting, start;
  logic      beat_valid, beat_ready, beat_inp, wr_inp, elem_valid, elem_want, wr_valid, wr_is_elem;
  logic [LogBusBytes-1:0] beat_lo, beat_hi;
  logic [MemoryMemoryTypeW-1:0] beat_type;
  logic [MemorySramBaseW-1:0] wr_addr;
  logic      inp_in_ready, wgt_in_ready, inp_out_valid, wgt_out_valid;
  logic [InpElemBytes*8-1:0] inp_elem;
  logic [WgtElemBytes*8-1:0] wgt_elem;
  memory_insn_t nx;
  logic       nx_known, nx_inp, known_q;
  logic [A-1:0] nx_base, nx_stride, nx_row_bytes, base_q, stride_q, row_bytes_q;
  localparam int unsigned PageW = $clog2((4096 >> LogBusBytes) + 1);
  logic [PageW-1:0] page_q;  // base's beats to the 4 KiB boundary
  logic [1:0]       part_q;  // the rows' partial beats

  assign head       = cmd_data_i;
  assign start      = cmd_valid_i && (!head.pop_next || tok_from_compute_i) && l2d_ready;
  assign cmd_ready_o = start;
  assign tok_pop_o  = start && head.pop_next;

  // The head's transfer in bytes, from the element the head register takes next (the queue's
  // register behind its head, or its input: one LUT level of the type bits and the two
  // candidate bits, behind the queue's choice between them). Instructions
  // of other memory types never reach this queue (fetch routes them); one that did would only
  // carry its tokens, in order: it goes through the DMA as a transfer of nothing (x_size 0, so
  // the DMA takes no burst or beat command for it and its byte fields are never read).
  assign nx           = cmd_next_i;
  assign nx_inp       = (nx.memory_type == MemInp);
  assign nx_known     = nx_inp || (nx.memory_type == MemWgt);
  assign nx_base      = nx_inp ? A'(nx.dram_base) << LogInpElemBytes :
                                 A'(nx.dram_base) << LogWgtElemBytes;
  assign nx_stride    = nx_inp ? A'(nx.x_stride) << LogInpElemBytes :
                                 A'(nx.x_stride) << LogWgtElemBytes;
  assign nx_row_bytes = nx_inp ? A'(nx.x_size) << LogInpElemBytes :
                                 A'(nx.x_size) << LogWgtElemBytes;
  vta_burst_start #(.LogBusBytes(LogBusBytes)) u_nx_start (
    .clk_i, .en_i(cmd_next_load_i), .addr_lo_i(nx_base[11:0]),
    .bytes_lo_i(nx_row_bytes[LogBusBytes-1:0]), .page_o(page_q), .part_o(part_q)
  );
  always_ff @(posedge clk_i) begin
    if (cmd_next_load_i) begin
      known_q     <= nx_known;
      base_q      <= nx_base;
      stride_q    <= nx_stride;
      row_bytes_q <= nx_row_bytes;
    end
  end

  always_comb begin
    dma_insn = head;
    if (!known_q) dma_insn.x_size = '0;
  end

  vta_load_2d #(
    .LogElemMax((LogInpElemBytes > LogWgtElemBytes) ? LogInpElemBytes : LogWgtElemBytes),
    .Depth (LoadAhead),
    // The command's first burst from registers, a cycle later, so that the next burst is a
    // kept pick (vta_burst_gen; the first burst from the command's fields was 3.4-3.8 ns on
    // block4)
    .CmdReg(1'b1)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i         (start),
    .ready_o         (l2d_ready),
    .insn_i          (dma_insn),
    .base_i          (base_q),
    .page_i          (page_q),
    .part_i          (part_q),
    .stride_i        (stride_q),
    .row_bytes_i     (row_bytes_q),
    .busy_o          (l2d_busy),
    .done_o          (l2d_done),
    .done_insn_o     (done_insn),
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
    .beat_type_o     (beat_type),
    .elem_valid_i    (elem_valid),
    .elem_want_o     (elem_want),
    .wr_valid_o      (wr_valid),
    .wr_addr_o       (wr_addr),
    .wr_is_elem_o    (wr_is_elem),
    .wr_insn_o       (wr_insn)
  );

  assign beat_inp = (beat_type == MemInp);
  assign wr_inp   = (wr_insn.memory_type == MemInp);

  vta_rd_gearbox #(
    .ElemBytes(InpElemBytes),
    .BusBytes (BusBytes)
  ) u_inp_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && beat_inp),
    .in_ready_o (inp_in_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(inp_out_valid),
    .out_ready_i(elem_want && wr_inp),
    .out_data_o (inp_elem)
  );

  vta_rd_gearbox #(
    .ElemBytes(WgtElemBytes),
    .BusBytes (BusBytes)
  ) u_wgt_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && !beat_inp),
    .in_ready_o (wgt_in_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(wgt_out_valid),
    .out_ready_i(elem_want && !wr_inp),
    .out_data_o (wgt_elem)
  );

  assign beat_ready = beat_inp ? inp_in_ready : wgt_in_ready;
  assign elem_valid = wr_inp ? inp_out_valid : wgt_out_valid;

  assign inp_we_o    = wr_valid && wr_inp;
  assign inp_waddr_o = LogInpDepth'(wr_addr);
  assign inp_wdata_o = wr_is_elem ? inp_elem : '0;
  assign wgt_we_o    = wr_valid && !wr_inp;
  assign wgt_waddr_o = LogWgtDepth'(wr_addr);
  assign wgt_wdata_o = wr_is_elem ? wgt_elem : '0;

  // Completion, in order: the cycle after an instruction's last write (vta_load_2d's done).
  assign tok_push_o  = l2d_done && done_insn.push_next;
  assign insn_done_o = l2d_done;
  assign busy_o      = l2d_busy;
  assign stall_o     = (!l2d_busy && cmd_valid_i && head.pop_next && !tok_from_compute_i) ||
                       l2d_waiting;

`ifndef SYNTHESIS
  // The registers beside the head hold what the head's fields give.
  logic       h_known;
  logic [3:0] h_log;
  assign h_known = (head.memory_type == MemInp) || (head.memory_type == MemWgt);
  assign h_log   = (head.memory_type == MemInp) ? 4'(LogInpElemBytes) : 4'(LogWgtElemBytes);
  always_ff @(posedge clk_i) begin
    if (rst_ni && cmd_valid_i) begin
      assert (known_q == h_known &&
              base_q == A'(head.dram_base) << h_log &&
              stride_q == A'(head.x_stride) << h_log &&
              row_bytes_q == A'(head.x_size) << h_log)
      else $error("vta_load: the head's byte transfer registers disagree with its fields");
    end
  end
`endif
endmodule

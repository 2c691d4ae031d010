// vta_load - the load module: LOAD instructions of the INP and WGT buffers.
//
// Takes instructions from the load command queue in order. Before an instruction starts it pops
// a compute->load token if pop_next is set (compute has finished with the buffer entries about to
// be overwritten); after its last buffer write it pushes a load->compute token if push_next is
// set. The transfer itself is vta_load_2d; the two gearboxes turn bus beats into INP and WGT
// elements. A new instruction starts in the cycle the previous one completes.
module vta_load
  import vta_pkg::*;
(
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // command queue
  input  logic                        cmd_valid_i,
  output logic                        cmd_ready_o,
  input  logic [InsnBytes*8-1:0]      cmd_data_i,
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
  memory_insn_t head, insn_q;
  logic      running_d, running_q;
  logic      l2d_busy, l2d_done, l2d_waiting, can_start, start, known_type, is_inp;
  logic      beat_valid, beat_ready, elem_valid, elem_take, wr_valid, wr_is_elem;
  logic [LogBusBytes-1:0] beat_lo, beat_hi;
  logic [MemorySramBaseW-1:0] wr_addr;
  logic      inp_in_ready, wgt_in_ready, inp_out_valid, wgt_out_valid;
  logic [InpElemBytes*8-1:0] inp_elem;
  logic [WgtElemBytes*8-1:0] wgt_elem;
  logic [3:0] log_elem;

  assign head       = cmd_data_i;
  assign known_type = (head.memory_type == MemInp) || (head.memory_type == MemWgt);
  assign can_start  = !running_q || l2d_done;
  assign start      = can_start && cmd_valid_i && (!head.pop_next || tok_from_compute_i);
  assign cmd_ready_o = start;
  assign tok_pop_o  = start && head.pop_next;
  // Instructions of other memory types never reach this queue (fetch routes them); one that did
  // would only carry its tokens.
  assign log_elem   = (head.memory_type == MemInp) ? 4'(LogInpElemBytes) : 4'(LogWgtElemBytes);
  assign is_inp     = (insn_q.memory_type == MemInp);

  vta_load_2d u_dma (
    .clk_i,
    .rst_ni,
    .start_i         (start && known_type),
    .insn_i          (head),
    .log_elem_bytes_i(log_elem),
    .busy_o          (l2d_busy),
    .done_o          (l2d_done),
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
    .elem_valid_i    (elem_valid),
    .elem_take_o     (elem_take),
    .wr_valid_o      (wr_valid),
    .wr_addr_o       (wr_addr),
    .wr_is_elem_o    (wr_is_elem)
  );

  vta_rd_gearbox #(
    .ElemBytes(InpElemBytes),
    .BusBytes (BusBytes)
  ) u_inp_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && is_inp),
    .in_ready_o (inp_in_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(inp_out_valid),
    .out_ready_i(elem_take && is_inp),
    .out_data_o (inp_elem)
  );

  vta_rd_gearbox #(
    .ElemBytes(WgtElemBytes),
    .BusBytes (BusBytes)
  ) u_wgt_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (beat_valid && !is_inp),
    .in_ready_o (wgt_in_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (beat_lo),
    .in_hi_i    (beat_hi),
    .out_valid_o(wgt_out_valid),
    .out_ready_i(elem_take && !is_inp),
    .out_data_o (wgt_elem)
  );

  assign beat_ready = is_inp ? inp_in_ready : wgt_in_ready;
  assign elem_valid = is_inp ? inp_out_valid : wgt_out_valid;

  assign inp_we_o    = wr_valid && is_inp;
  assign inp_waddr_o = LogInpDepth'(wr_addr);
  assign inp_wdata_o = wr_is_elem ? inp_elem : '0;
  assign wgt_we_o    = wr_valid && !is_inp;
  assign wgt_waddr_o = LogWgtDepth'(wr_addr);
  assign wgt_wdata_o = wr_is_elem ? wgt_elem : '0;

  // Completion: the cycle after the last write (vta_load_2d's done), or at once for an
  // instruction that moves nothing.
  always_comb begin
    running_d = running_q;
    if (l2d_done) running_d = 1'b0;
    if (start) running_d = known_type;
  end
  assign tok_push_o  = (running_q && l2d_done && insn_q.push_next) ||
                       (start && !known_type && head.push_next);
  assign insn_done_o = (running_q && l2d_done) || (start && !known_type);
  assign busy_o      = running_q || l2d_busy;
  assign stall_o     = (!running_q && cmd_valid_i && head.pop_next && !tok_from_compute_i) ||
                       l2d_waiting;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running_q <= 1'b0;
      insn_q    <= '0;
    end else begin
      running_q <= running_d;
      if (start) insn_q <= head;
    end
  end
endmodule

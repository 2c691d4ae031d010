// vta_store - the store module: STORE instructions from the OUT buffer to DRAM.
//
// Before an instruction starts it pops a compute->store token if pop_prev is set; after the
// last write response it pushes a store->compute token if push_prev is set (so whatever follows
// the token sees the data in DRAM). The OUT elements of a STORE are contiguous in the buffer
// (sram_base + y*x_size + x), so a reader streams them through a small FIFO into the write
// gearbox, which packs them into beats with strobes for the row layout in DRAM. Bursts are
// issued ahead of the data by vta_burst_gen; their lengths queue up so that the data side knows
// where each burst ends (wlast).
module vta_store
  import vta_pkg::*;
(
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        cmd_valid_i,
  output logic                        cmd_ready_o,
  input  logic [InsnBytes*8-1:0]      cmd_data_i,
  input  logic                        tok_from_compute_i,
  output logic                        tok_pop_o,
  output logic                        tok_push_o,          // store->compute
  output logic                        out_re_o,
  output logic [LogOutDepth-1:0]      out_raddr_o,
  input  logic [OutElemBytes*8-1:0]   out_rdata_i,
  output logic                        aw_valid_o,
  input  logic                        aw_ready_i,
  output logic [AxiAddrWidth-1:0]     aw_addr_o,
  output logic [7:0]                  aw_len_o,
  output logic                        w_valid_o,
  input  logic                        w_ready_i,
  output logic [BusWidth-1:0]         w_data_o,
  output logic [BusBytes-1:0]         w_strb_o,
  output logic                        w_last_o,
  input  logic                        b_valid_i,
  output logic                        b_ready_o,
  output logic                        busy_o,
  output logic                        stall_o,
  output logic                        insn_done_o
);
  localparam int unsigned A = AxiAddrWidth;
  localparam int unsigned ElemW = OutElemBytes * 8;
  localparam int unsigned FifoDepth = 4;

  memory_insn_t head, insn_q;
  logic start, empty_insn, running_d, running_q, done;
  logic [A-1:0] base, stride, row_bytes;
  logic bl_in_ready, bg_ax_valid, bg_ready, bg_busy, rb_ready, rb_valid, slot_step;
  logic [LogBusBytes-1:0] slot_lo, slot_hi;

  assign head       = cmd_data_i;
  assign empty_insn = (head.x_size == '0) || (head.y_size == '0);
  assign start      = !running_q && cmd_valid_i && (!head.pop_prev || tok_from_compute_i);
  assign cmd_ready_o = start;
  assign tok_pop_o  = start && head.pop_prev;
  assign base       = A'(head.dram_base) << LogOutElemBytes;
  assign stride     = A'(head.x_stride) << LogOutElemBytes;
  assign row_bytes  = A'(head.x_size) << LogOutElemBytes;

  vta_burst_gen #(
    .AddrW      (A),
    .RowsW      (MemoryYSizeW),
    .LogBusBytes(LogBusBytes),
    .MaxBeats   (16),
    .RowBytesW  (MemoryXSizeW + LogOutElemBytes)
  ) u_bursts (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (start && !empty_insn),
    .cmd_ready_o    (bg_ready),
    .cmd_base_i     (base),
    .cmd_stride_i   (stride),
    .cmd_row_bytes_i(row_bytes),
    .cmd_rows_i     (head.y_size),
    .ax_valid_o     (bg_ax_valid),
    .ax_ready_i     (aw_ready_i && bl_in_ready),
    .ax_addr_o      (aw_addr_o),
    .ax_len_o       (aw_len_o),
    .busy_o         (bg_busy)
  );

  vta_row_beats #(
    .AddrW      (A),
    .RowsW      (MemoryYSizeW),
    .LogBusBytes(LogBusBytes),
    .RowBytesW  (MemoryXSizeW + LogOutElemBytes)
  ) u_slots (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (start && !empty_insn),
    .cmd_ready_o    (rb_ready),
    .cmd_base_lo_i  (base[LogBusBytes-1:0]),
    .cmd_stride_lo_i(stride[LogBusBytes-1:0]),
    .cmd_row_bytes_i(row_bytes),
    .cmd_rows_i     (head.y_size),
    .valid_o        (rb_valid),
    .step_i         (slot_step),
    .lo_o           (slot_lo),
    .hi_o           (slot_hi),
    .last_o         ()
  );

  // ---- OUT reader: one element per cycle while the FIFO has room for it ----
  // Elements left to read, as rows and columns: no x_size * y_size multiply when a store starts.
  logic [MemoryXSizeW-1:0] x_left_d, x_left_q, x_size_q;
  logic [MemoryYSizeW-1:0] y_left_d, y_left_q;
  logic [LogOutDepth-1:0] raddr_d, raddr_q;
  logic inflight_q, rd, fifo_in_ready, fifo_out_valid, gb_in_ready;
  logic [$clog2(FifoDepth+1)-1:0] fifo_count;
  logic [ElemW-1:0] fifo_data;

  assign rd          = (y_left_q != '0) && (32'(fifo_count) + 32'(inflight_q) < FifoDepth);
  assign out_re_o    = rd;
  assign out_raddr_o = raddr_q;

  always_comb begin
    x_left_d = x_left_q;
    y_left_d = y_left_q;
    raddr_d  = raddr_q;
    if (start && !empty_insn) begin
      x_left_d = head.x_size;
      y_left_d = head.y_size;
      raddr_d  = LogOutDepth'(head.sram_base);
    end else if (rd) begin
      if (x_left_q == MemoryXSizeW'(1)) begin
        x_left_d = x_size_q;
        y_left_d = y_left_q - 1'b1;
      end else begin
        x_left_d = x_left_q - 1'b1;
      end
      raddr_d = raddr_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      x_left_q   <= '0;
      y_left_q   <= '0;
      raddr_q    <= '0;
      inflight_q <= 1'b0;
    end else begin
      x_left_q   <= x_left_d;
      y_left_q   <= y_left_d;
      raddr_q    <= raddr_d;
      inflight_q <= rd;
    end
  end
  always_ff @(posedge clk_i) begin
    if (start && !empty_insn) x_size_q <= head.x_size;
  end

  vta_fifo #(.Width(ElemW), .Depth(FifoDepth)) u_elems (
    .clk_i,
    .rst_ni,
    .in_valid_i (inflight_q),
    .in_ready_o (fifo_in_ready),
    .in_data_i  (out_rdata_i),
    .out_valid_o(fifo_out_valid),
    .out_ready_i(gb_in_ready),
    .out_data_o (fifo_data),
    .count_o    (fifo_count),
    .head_load_o(),
    .head_next_o()
  );

  // ---- write data: gearbox, burst ends, responses ----
  logic gb_valid, w_fire, bl_valid;
  logic [7:0] bl_len, beat_d, beat_q;
  logic [BusWidth-1:0] gb_data;
  logic [BusBytes-1:0] gb_strb;

  vta_wr_gearbox #(.ElemBytes(OutElemBytes), .BusBytes(BusBytes)) u_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i  (fifo_out_valid),
    .in_ready_o  (gb_in_ready),
    .in_data_i   (fifo_data),
    .slot_valid_i(rb_valid),
    .slot_step_o (slot_step),
    .slot_lo_i   (slot_lo),
    .slot_hi_i   (slot_hi),
    .out_valid_o (gb_valid),
    .out_ready_i (w_ready_i && bl_valid),
    .out_data_o  (gb_data),
    .out_strb_o  (gb_strb)
  );

  vta_fifo #(.Width(8), .Depth(8)) u_burst_lens (
    .clk_i,
    .rst_ni,
    .in_valid_i (aw_valid_o && aw_ready_i),
    .in_ready_o (bl_in_ready),
    .in_data_i  (aw_len_o),
    .out_valid_o(bl_valid),
    .out_ready_i(w_fire && w_last_o),
    .out_data_o (bl_len),
    .count_o    (),
    .head_load_o(),
    .head_next_o()
  );

  // A burst is announced only when its length can be queued for the data side.
  assign aw_valid_o = bg_ax_valid && bl_in_ready;
  assign w_valid_o = gb_valid && bl_valid;
  assign w_data_o  = gb_data;
  assign w_strb_o  = gb_strb;
  assign w_last_o  = (beat_q == bl_len);
  assign w_fire    = w_valid_o && w_ready_i;
  assign b_ready_o = 1'b1;

  always_comb begin
    beat_d = beat_q;
    if (w_fire) beat_d = w_last_o ? '0 : beat_q + 1'b1;
  end

  logic [8:0] outstanding_d, outstanding_q;
  always_comb begin
    outstanding_d = outstanding_q;
    if (aw_valid_o && aw_ready_i) outstanding_d = outstanding_d + 1'b1;
    if (b_valid_i) outstanding_d = outstanding_d - 1'b1;
  end

  assign done = running_q && !bg_busy && !bl_valid && (outstanding_q == '0);

  always_comb begin
    running_d = running_q;
    if (done) running_d = 1'b0;
    if (start && !empty_insn) running_d = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      beat_q        <= '0;
      outstanding_q <= '0;
      running_q     <= 1'b0;
      insn_q        <= '0;
    end else begin
      beat_q        <= beat_d;
      outstanding_q <= outstanding_d;
      running_q     <= running_d;
      if (start) insn_q <= head;
    end
  end

  assign tok_push_o  = (done && insn_q.push_prev) || (start && empty_insn && head.push_prev);
  assign insn_done_o = done || (start && empty_insn);
  assign busy_o      = running_q;
  assign stall_o     = (!running_q && cmd_valid_i && head.pop_prev && !tok_from_compute_i) ||
                       (running_q && !w_valid_o && !bg_busy && bl_valid);

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start && !empty_insn && !(bg_ready && rb_ready)))
      else $error("vta_store: start while busy");
      assert (!(inflight_q && !fifo_in_ready)) else $error("vta_store: element FIFO overflow");
      assert (!(b_valid_i && outstanding_q == '0)) else $error("vta_store: response with no burst");
    end
  end
`endif
endmodule

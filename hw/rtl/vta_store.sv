// vta_store - the store module: STORE instructions from the OUT buffer to DRAM.
//
// Before an instruction starts it pops a compute->store token if pop_prev is set; after its
// last write response it pushes a store->compute token if push_prev is set (so whatever follows
// the token sees the data in DRAM). The OUT elements of a STORE are contiguous in the buffer
// (sram_base + y*x_size + x), so a reader streams them through a small FIFO into the write
// gearbox, which packs them into beats with strobes for the row layout in DRAM. Bursts are
// issued ahead of the data by vta_burst_gen; their lengths queue up so that the data side knows
// where each burst ends (wlast).
//
// Instructions overlap their write responses: the next STORE starts as soon as the current
// one's data side is finished (every burst announced and every beat sent), in that very cycle,
// while the responses of earlier ones are still on their way (about write_latency cycles that
// every STORE used to wait for by itself). AXI returns write responses in order, so a small
// FIFO (the tail) holds, per instruction whose data are out, the number of bursts announced
// up to its end and its push_prev flag; the instruction completes (insn_done_o, and the token
// if push_prev) in the cycle the count of responses reaches that number. At most TailDepth
// non-empty STOREs are in flight (started and not completed): a new one waits for a slot. A
// STORE with x_size or y_size 0 moves no data but completes (and pushes) only after every
// earlier STORE: it starts when none is in flight, and completes in the cycle it starts.
module vta_store
  import vta_pkg::*;
(
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        cmd_valid_i,
  output logic                        cmd_ready_o,
  input  logic [InsnBytes*8-1:0]      cmd_data_i,
  // the queue's head register takes cmd_next_i at the end of a cycle with cmd_next_load_i
  input  logic                        cmd_next_load_i,
  input  logic [InsnBytes*8-1:0]      cmd_next_i,
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
  // STOREs in flight (started, not completed). Four cover the write latency of the default
  // configuration (32 cycles) with stores of 8 or more beats; more would only help runs of tiny
  // stores.
  localparam int unsigned TailDepth = 4;
  // Burst counts are kept modulo 2^CntW: enough as long as fewer than 2^CntW bursts are
  // outstanding (the assertions below check it).
  localparam int unsigned CntW = 9;
  localparam int unsigned PendW = $clog2(TailDepth + 1);

  memory_insn_t head;
  logic start, can_take, empty_insn, data_d, data_q, data_end, push_q, done, bl_valid;
  logic             pend_zero, pend_full;  // the count is 0, TailDepth
  logic [A-1:0] base, stride, row_bytes;
  logic bl_in_ready, bg_ax_valid, bg_ready, bg_busy, rb_ready, rb_valid, slot_step;
  logic [LogBusBytes-1:0] slot_lo, slot_hi;

  assign head       = cmd_data_i;
  assign empty_insn = (head.x_size == '0) || (head.y_size == '0);
  // The data side of the previous STORE ends in this cycle or is idle; a STORE that moves no data
  // waits until every earlier one has completed, one that does for a free slot.
  assign data_end   = data_q && !bg_busy && !bl_valid;
  assign can_take   = empty_insn ? pend_zero : ((!data_q || data_end) && !pend_full);
  assign start      = can_take && cmd_valid_i && (!head.pop_prev || tok_from_compute_i);
  assign cmd_ready_o = start;
  assign tok_pop_o  = start && head.pop_prev;
  assign base       = A'(head.dram_base) << LogOutElemBytes;
  assign stride     = A'(head.x_stride) << LogOutElemBytes;
  assign row_bytes  = A'(head.x_size) << LogOutElemBytes;

  // The first burst's beats to the 4 KiB boundary and its row's partial beats, worked out from
  // the element the queue's head takes next and registered beside it (as vta_load does), so the
  // burst generator's first burst starts from registers rather than behind a sum of the head's
  // address (4.47 ns on BLOCK 4).
  localparam int unsigned PageW = $clog2((4096 >> LogBusBytes) + 1);
  /* verilator lint_off UNUSEDSIGNAL */
  memory_insn_t     nx;  // only its address and size are read
  logic [A-1:0]     nx_base, nx_row_bytes;  // only their low bits are read
  /* verilator lint_on UNUSEDSIGNAL */
  logic [PageW-1:0] page_q;
  logic [1:0]       part_q;
  assign nx           = cmd_next_i;
  assign nx_base      = A'(nx.dram_base) << LogOutElemBytes;
  assign nx_row_bytes = A'(nx.x_size) << LogOutElemBytes;
  vta_burst_start #(.LogBusBytes(LogBusBytes)) u_nx_start (
    .clk_i, .en_i(cmd_next_load_i), .addr_lo_i(nx_base[11:0]),
    .bytes_lo_i(nx_row_bytes[LogBusBytes-1:0]), .page_o(page_q), .part_o(part_q)
  );
  // And whether that row is one beat, for the beat walker's last-beat flag at its take (OneIn;
  // worked out from the head's fields behind the queue's multiplexer, 3.04 ns on block4).
  localparam int unsigned StRowBytesW = MemoryXSizeW + LogOutElemBytes;
  logic [1:0] nx_part;
  logic       one_q;
  vta_part_beats #(.LogBusBytes(LogBusBytes)) u_nx_part (
    .start_lo_i(nx_base[LogBusBytes-1:0]), .bytes_lo_i(nx_row_bytes[LogBusBytes-1:0]),
    .part_o(nx_part)
  );
  always_ff @(posedge clk_i) begin
    if (cmd_next_load_i)
      one_q <= (nx_row_bytes[StRowBytesW-1:LogBusBytes] == '0 && nx_part == 2'd1) ||
               (nx_row_bytes[StRowBytesW-1:LogBusBytes] == (StRowBytesW - LogBusBytes)'(1) &&
                nx_part == 2'd0);
  end

  vta_burst_gen #(
    .AddrW      (A),
    .RowsW      (MemoryYSizeW),
    .LogBusBytes(LogBusBytes),
    .MaxBeats   (16),
    .RowBytesW  (StRowBytesW),
    .PageIn     (1'b1),
    // The command's first burst from registers, a cycle later (the data side, which reads OUT
    // and waits for its first element, is later still), so the next burst is a kept pick of
    // the answer (3.2-3.3 ns as a multiplexer tree behind the same row's next burst).
    .CmdReg     (1'b1),
    // The same row's next burst registered on every bus (vta_burst_gen, SameLast): a store's
    // data follow its addresses by several cycles anyway (its same-row burst was 3.05 ns on
    // batch4's 64-bit bus).
    .SameReg    (1'b1),
    .SameLast   (1'b1)
  ) u_bursts (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (start && !empty_insn),
    .cmd_ready_o    (bg_ready),
    .cmd_base_i     (base),
    .cmd_page_i     (page_q),
    .cmd_part_i     (part_q),
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
    .RowBytesW  (StRowBytesW),
    .PartIn     (1'b1),
    .OneIn      (1'b1)
  ) u_slots (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (start && !empty_insn),
    .cmd_ready_o    (rb_ready),
    .cmd_base_lo_i  (base[LogBusBytes-1:0]),
    .cmd_stride_lo_i(stride[LogBusBytes-1:0]),
    .cmd_row_bytes_i(row_bytes),
    .cmd_rows_i     (head.y_size),
    .cmd_part_i     (part_q),
    .cmd_one_i      (one_q),
    .valid_o        (rb_valid),
    .step_i         (slot_step),
    .lo_o           (slot_lo),
    .hi_o           (slot_hi),
    .last_o         ()
  );

  // ---- OUT reader: one element per cycle while the FIFO has room for it (the data arrive
  // two cycles after the read: OUT's output register) ----
  // Elements left to read, as rows and columns: no x_size * y_size multiply when a store starts.
  logic [MemoryXSizeW-1:0] x_left_d, x_left_q, x_size_q;
  logic [MemoryYSizeW-1:0] y_left_d, y_left_q;
  logic [LogOutDepth-1:0] raddr_d, raddr_q;
  logic [1:0] inflight_q;  // reads one and two cycles ago
  logic rd, fifo_in_ready, fifo_out_valid, gb_in_ready, y_nz_d, y_nz_q;
  localparam int unsigned CredW = $clog2(FifoDepth + 1);
  logic [CredW-1:0] fifo_count, credit_q;
  logic [ElemW-1:0] fifo_data;

  // Reads go by two registers: whether elements are left (y_nz_q, y_left_q != 0) and the FIFO
  // entries neither taken nor claimed by a read in flight (credit_q, FifoDepth - fifo_count -
  // the reads in flight), not by a sum and comparison in front of OUT's read enable.
  assign rd          = y_nz_q && (credit_q != '0);
  assign out_re_o    = rd;
  assign out_raddr_o = raddr_q;

  always_comb begin
    x_left_d = x_left_q;
    y_left_d = y_left_q;
    y_nz_d   = y_nz_q;
    raddr_d  = raddr_q;
    if (start && !empty_insn) begin
      x_left_d = head.x_size;
      y_left_d = head.y_size;
      y_nz_d   = 1'b1;  // a non-empty STORE
      raddr_d  = LogOutDepth'(head.sram_base);
    end else if (rd) begin
      if (x_left_q == MemoryXSizeW'(1)) begin
        x_left_d = x_size_q;
        y_left_d = y_left_q - 1'b1;
        y_nz_d   = (y_left_q != MemoryYSizeW'(1));
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
      inflight_q <= '0;
      y_nz_q     <= 1'b0;
      credit_q   <= CredW'(FifoDepth);
    end else begin
      x_left_q   <= x_left_d;
      y_left_q   <= y_left_d;
      y_nz_q     <= y_nz_d;
      raddr_q    <= raddr_d;
      inflight_q <= {inflight_q[0], rd};
      credit_q   <= credit_q - CredW'(rd) + CredW'(fifo_out_valid && gb_in_ready);
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (y_nz_q == (y_left_q != '0)) else $error("vta_store: y_nz_q disagrees with y_left_q");
      assert (32'(credit_q) + 32'(fifo_count) + 32'(inflight_q[0]) + 32'(inflight_q[1]) ==
              FifoDepth)
      else $error("vta_store: the reader's credit disagrees with the FIFO and the reads");
    end
  end
`endif
  always_ff @(posedge clk_i) begin
    if (start && !empty_insn) x_size_q <= head.x_size;
  end

  vta_fifo #(.Width(ElemW), .Depth(FifoDepth)) u_elems (
    .clk_i,
    .rst_ni,
    .in_valid_i (inflight_q[1]),
    .in_ready_o (fifo_in_ready),
    .in_data_i  (out_rdata_i),
    .out_valid_o(fifo_out_valid),
    .out_ready_i(gb_in_ready),
    .out_data_o (fifo_data),
    .count_o    (fifo_count),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );

  // ---- write data: gearbox, burst ends, responses ----
  logic gb_valid, w_fire;
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
    .head_next_o(),
    .head_fill_o()
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

  // ---- completion: responses counted against each instruction's last burst ----
  logic [CntW-1:0] aw_cnt_d, aw_cnt_q, b_cnt_d, b_cnt_q, tail_target;
  logic tail_valid, tail_push, aw_fire;

  assign aw_fire = aw_valid_o && aw_ready_i;

  // Per instruction whose data are out, in order: the burst count that completes it.
  vta_fifo #(.Width(CntW + 1), .Depth(TailDepth)) u_tail (
    .clk_i,
    .rst_ni,
    .in_valid_i (data_end),
    .in_ready_o (),
    .in_data_i  ({aw_cnt_q, push_q}),
    .out_valid_o(tail_valid),
    .out_ready_i(done),
    .out_data_o ({tail_target, tail_push}),
    .count_o    (),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );

  assign done = tail_valid && (b_cnt_q == tail_target);

  // Non-empty STOREs started and not completed (the data side's one and the tail's).
  vta_updown #(.Width(PendW), .Top(TailDepth)) u_pend (
    .clk_i,
    .rst_ni,
    .clear_i(1'b0),
    .inc_i  (start && !empty_insn),
    .dec_i  (done),
    .count_o(),
    .zero_o (pend_zero),
    .one_o  (),
    .two_o  (),
    .top_o  (pend_full)
  );

  always_comb begin
    data_d   = data_q;
    aw_cnt_d = aw_cnt_q;
    b_cnt_d  = b_cnt_q;
    if (data_end) data_d = 1'b0;
    if (start && !empty_insn) data_d = 1'b1;
    if (aw_fire) aw_cnt_d = aw_cnt_q + 1'b1;
    if (b_valid_i) b_cnt_d = b_cnt_q + 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      beat_q   <= '0;
      aw_cnt_q <= '0;
      b_cnt_q  <= '0;
      data_q   <= 1'b0;
      push_q   <= 1'b0;
    end else begin
      beat_q   <= beat_d;
      aw_cnt_q <= aw_cnt_d;
      b_cnt_q  <= b_cnt_d;
      data_q   <= data_d;
      if (start) push_q <= head.push_prev;
    end
  end

  // An empty STORE starts only with nothing in flight, so its push never meets a completion's.
  assign tok_push_o  = (done && tail_push) || (start && empty_insn && head.push_prev);
  assign insn_done_o = done || (start && empty_insn);
  // Busy while data move or responses are awaited; stalled while idle waiting for a token, or
  // while the data side waits for OUT data with every burst announced.
  assign busy_o      = data_q || tail_valid;
  assign stall_o     = (!busy_o && cmd_valid_i && head.pop_prev && !tok_from_compute_i) ||
                       (data_q && !w_valid_o && !bg_busy && bl_valid);

`ifndef SYNTHESIS
  logic [CntW-1:0] outstanding, head_left;
  assign outstanding = aw_cnt_q - b_cnt_q;
  assign head_left   = tail_target - b_cnt_q;
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start && !empty_insn && !(bg_ready && rb_ready)))
      else $error("vta_store: start while busy");
      assert (!(inflight_q[1] && !fifo_in_ready)) else $error("vta_store: element FIFO overflow");
      assert (!(b_valid_i && outstanding == '0)) else $error("vta_store: response with no burst");
      assert (!(aw_fire && outstanding == '1)) else $error("vta_store: burst count overflow");
      // The head's target lies among the bursts announced and not answered (never passed).
      assert (!(tail_valid && head_left > outstanding))
      else $error("vta_store: completion target passed");
      // The data side ends with the reader, the element FIFO and the gearbox empty.
      assert (!(data_end && (y_left_q != '0 || inflight_q != 2'b00 || fifo_out_valid || gb_valid ||
                             rb_valid)))
      else $error("vta_store: data side ends with elements left");
      // With no STORE on the data side, no burst is left to announce nor beat to send.
      assert (data_q || (!bg_busy && !bl_valid)) else $error("vta_store: data side busy when idle");
      assert (!(start && empty_insn && (data_q || tail_valid)))
      else $error("vta_store: empty store before earlier ones completed");
    end
  end
`endif
endmodule

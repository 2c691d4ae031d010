// vta_load_2d - the 2-D DMA with zero padding shared by the load and compute modules.
//
// Up to Depth LOAD instructions are accepted ahead of the one being written, so that the read
// addresses of the next instructions go out while the data of the current one is still
// arriving: a run of short loads then costs one memory latency, not one per instruction. Three
// parts run concurrently, in instruction order, each with its own queue:
// - vta_burst_gen issues the read bursts of an instruction as soon as it is accepted (the next
//   one is accepted when the generator has issued the previous one's last burst);
// - vta_row_beats tags each returning beat with the bytes that belong to the transfer; its
//   commands wait in a queue and follow each other without a gap (AXI returns the bursts of one
//   ID in order, so the beats of instruction i+1 follow those of i);
// - a write sequencer takes the accepted instructions in order and walks the destination buffer
//   from sram_base in the order of ISA.md section 3 (y_pad_0 rows of zeros, then each row as
//   x_pad_0 zeros, x_size elements, x_pad_1 zeros, then y_pad_1 rows of zeros), writing one
//   entry per cycle: a zero, or the next element from the parent's gearbox when one is ready.
// The parent owns the gearboxes (their element width depends on the memory type: beat_type_o
// says where a beat goes, wr_insn_o which gearbox the writes take from) and the buffers. done_o
// pulses once per instruction, in order, in the cycle after its last write (when every write
// has landed), with the instruction in done_insn_o. An instruction that moves nothing (x_size 0,
// or no rows at all) completes in its turn without touching memory.
//
// Accepting an instruction early is safe for the caller's tokens: it pops them at acceptance,
// before any of the instruction's reads, and pushes them at done_o, after its last write.
module vta_load_2d
  import vta_pkg::*;
#(
  parameter int unsigned Depth = 1,  // instructions accepted and not yet written (>= 1)
  parameter bit          CmdReg = 1'b0,  // vta_burst_gen's: the first burst a cycle later
  parameter bit          IdleTake = 1'b0,  // vta_row_beats's: no start until the last is done
  // log2 of the largest element the parent moves: the transfers' addresses stay below
  // 2^A, A = max(dram_base's bits, y_size's + x_stride's) + LogElemMax + 2 (the row and a
  // carry), so the address arithmetic has A bits and ar_addr_o's bits above are zero. (The
  // 64-bit sums carried through bits that are always zero: the compute DMA's next row address
  // behind a 30-bit upper chain, 3.22 ns on small.)
  parameter int unsigned LogElemMax = AxiAddrWidth  // (the default: AxiAddrWidth bits)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    start_i,          // accept insn_i; only when ready_o
  output logic                    ready_o,
  input  memory_insn_t            insn_i,
  // insn's transfer in bytes: dram_base, x_stride and x_size shifted by the element size of its
  // memory type (the parent works them out ahead, into registers: a shift here would lie in
  // front of the first burst's arithmetic)
  input  logic [AxiAddrWidth-1:0] base_i,
  // beats from base_i to the next 4 KiB boundary (vta_page_beats of base_i, a register too)
  input  logic [$clog2((4096 >> LogBusBytes) + 1)-1:0] page_i,
  // the partial beats of its rows (vta_part_beats of base_i and row_bytes_i, a register too)
  input  logic [1:0]              part_i,
  input  logic [AxiAddrWidth-1:0] stride_i,
  input  logic [AxiAddrWidth-1:0] row_bytes_i,
  output logic                    busy_o,           // an accepted instruction is not done
  output logic                    done_o,
  output memory_insn_t            done_insn_o,      // the instruction done_o reports
  output logic                    waiting_o,        // writing but no element ready (memory stall)
  // AXI read address and data (after arbitration)
  output logic                    ar_valid_o,
  input  logic                    ar_ready_i,
  output logic [AxiAddrWidth-1:0] ar_addr_o,
  output logic [7:0]              ar_len_o,
  input  logic                    r_valid_i,
  output logic                    r_ready_o,
  // tagged beats towards the parent's gearboxes (data is r_data, passed by the parent)
  output logic                    beat_valid_o,
  input  logic                    beat_ready_i,
  output logic [LogBusBytes-1:0]  beat_lo_o,
  output logic [LogBusBytes-1:0]  beat_hi_o,
  output logic [MemoryMemoryTypeW-1:0] beat_type_o, // memory type of the beat's instruction
  // elements from the parent's gearbox
  input  logic                    elem_valid_i,
  output logic                    elem_want_o,  // a write wants an element (the gearbox's
                                                // ready: it gives one when it has one)
  // buffer writes: entry index (the parent keeps the bits its buffer needs) and data/zero
  output logic                    wr_valid_o,
  output logic [MemorySramBaseW-1:0] wr_addr_o,
  output logic                    wr_is_elem_o,
  output memory_insn_t            wr_insn_o         // the instruction being written
);
  localparam int unsigned Span = (MemoryDramBaseW > MemoryYSizeW + MemoryXStrideW)
                                 ? MemoryDramBaseW : MemoryYSizeW + MemoryXStrideW;
  localparam int unsigned A = (Span + LogElemMax + 2 < AxiAddrWidth) ? Span + LogElemMax + 2
                                                                     : AxiAddrWidth;
  localparam int unsigned RowsW = MemoryYSizeW;
  localparam int unsigned InsnW = InsnBytes * 8;  // memory_insn_t names every bit
  // A row's bytes: x_size << the log2 of the element's bytes (a 4-bit field: at most 15 for the
  // burst generator). The beat walker's counts are as wide as the parent's largest element
  // needs (LogElemMax), which keeps their decrement short (with 15 bits: 3.01 ns on block4's
  // load DMA); the burst generator keeps the 4-bit field's width (narrowed too, abc mapped
  // its same-row comparison behind a MUXF8: 3.05 ns on block8's load DMA).
  localparam int unsigned RowBytesW = MemoryXSizeW + 15;
  localparam int unsigned WalkBytesW = MemoryXSizeW + ((LogElemMax < 15) ? LogElemMax : 15);
  localparam int unsigned L = LogBusBytes;
  // Position counters cover pads on both sides of a size field.
  localparam int unsigned YW = MemoryYSizeW + 1;
  localparam int unsigned XW = MemoryXSizeW + 1;

  memory_insn_t    cur_d, cur_q, done_insn_d, done_insn_q, q_head, rb_insn;
  logic            busy_d, busy_q, done_d, done_q;
  logic [YW-1:0]   y_d, y_q, y_total, y_lm1_q, y_pre_q, y_endm1_q;
  logic [XW-1:0]   x_d, x_q, x_total, x_lm1_q, x_pre_q, x_endm1_q;
  // Whether the position is in the last row and the last column, flags kept as the counters
  // move (against the last index minus one, or whether there is one row or column), so the
  // step's next state reads two flip-flops, not the position's comparisons (3.12 ns on the
  // default, behind the ACC_8BIT element handshake).
  logic            yl_d, yl_q, xl_d, xl_q, x_one_q;
  logic            in_rows_d, in_rows_q, in_cols_d, in_cols_q, cols0_q, y_any_q;
  logic [MemorySramBaseW-1:0] addr_d, addr_q;
  logic            in_rows, in_cols, is_elem, step, last_pos, has_data, head_empty;
  logic            q_in_ready, q_valid, q_pop, rbq_in_ready, rbq_valid;
  logic            bg_ready, rb_ready, rb_valid, rb_take;
  logic [MemoryMemoryTypeW-1:0] rb_type_q;
  logic [A-1:0]    rb_row_bytes;
  logic [L-1:0]    rb_base_lo, rb_stride_lo;  // the beat walker needs the low bits only
  logic [WalkBytesW-1:0] rb_rbytes;
  logic [InsnW-1:0] q_head_bits, rb_insn_bits;

  // ---- Acceptance ----
  assign has_data = (insn_i.x_size != '0) && (insn_i.y_size != '0);
  assign ready_o  = q_in_ready && rbq_in_ready && bg_ready;

  // Whether an instruction moves nothing is worked out as it enters the queue and kept beside
  // it, so that the head's decision (a sync no-op completes at once) reads a flag, not the
  // comparisons of its fields (3.34 ns on the default through them into done_insn_q).
  // So are the last row's and column's index less one and whether there is one row or
  // column, for the last-position flags (yl_q, xl_q; from the head, the sums were 3.3-3.5 ns).
  logic in_empty, q_head_empty, in_x_one, in_y_one, q_x_one, q_y_one;
  logic [YW-1:0] in_y_lm1, q_y_lm1;
  logic [XW-1:0] in_x_lm1, q_x_lm1;
  assign in_empty = (insn_i.x_size == '0) ||
                    (insn_i.y_pad_0 == '0 && insn_i.y_size == '0 && insn_i.y_pad_1 == '0);
  assign in_y_lm1 = YW'(insn_i.y_pad_0) + YW'(insn_i.y_size) + YW'(insn_i.y_pad_1) - YW'(2);
  assign in_x_lm1 = XW'(insn_i.x_pad_0) + XW'(insn_i.x_size) + XW'(insn_i.x_pad_1) - XW'(2);
  // (The sum is one when one term is one and the others zero.)
  assign in_y_one = (insn_i.y_pad_0 == 1 && insn_i.y_size == '0 && insn_i.y_pad_1 == '0) ||
                    (insn_i.y_pad_0 == '0 && insn_i.y_size == 1 && insn_i.y_pad_1 == '0) ||
                    (insn_i.y_pad_0 == '0 && insn_i.y_size == '0 && insn_i.y_pad_1 == 1);
  assign in_x_one = (insn_i.x_pad_0 == 1 && insn_i.x_size == '0 && insn_i.x_pad_1 == '0) ||
                    (insn_i.x_pad_0 == '0 && insn_i.x_size == 1 && insn_i.x_pad_1 == '0) ||
                    (insn_i.x_pad_0 == '0 && insn_i.x_size == '0 && insn_i.x_pad_1 == 1);
  vta_fifo #(
    .Width(InsnW + 3 + YW + XW),
    .Depth(Depth)
  ) u_insn_q (
    .clk_i,
    .rst_ni,
    .in_valid_i (start_i),
    .in_ready_o (q_in_ready),
    .in_data_i  ({in_y_one, in_x_one, in_y_lm1, in_x_lm1, in_empty, insn_i}),
    .out_valid_o(q_valid),
    .out_ready_i(q_pop),
    .out_data_o ({q_y_one, q_x_one, q_y_lm1, q_x_lm1, q_head_empty, q_head_bits}),
    .count_o    (),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );
  assign q_head = q_head_bits;

  // ---- Address side: the bursts of an instruction go out as soon as it is accepted ----
  logic [A-1:0] ar_addr_a;
  assign ar_addr_o = AxiAddrWidth'(ar_addr_a);
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && start_i && has_data && A < AxiAddrWidth)
      assert (((base_i | stride_i | row_bytes_i) >> A) == '0 &&
              (65'(base_i) + 65'(insn_i.y_size) * 65'(stride_i) + 65'(row_bytes_i)) >> A == '0)
      else $error("vta_load_2d: a transfer from 0x%0h (stride %0d, %0d rows of %0d bytes) needs more than %0d address bits",
                  base_i, stride_i, insn_i.y_size, row_bytes_i, A);
  end
`endif

  vta_burst_gen #(
    .AddrW      (A),
    .RowsW      (RowsW),
    .LogBusBytes(LogBusBytes),
    .MaxBeats   (16),
    .RowBytesW  (RowBytesW),
    .PageIn     (1'b1),
    .CmdReg     (CmdReg),
    .SameReg    (CmdReg && LogBusBytes >= 4),
    .SameLast   (1'b1)
  ) u_bursts (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (start_i && has_data),
    .cmd_ready_o    (bg_ready),
    .cmd_base_i     (base_i[A-1:0]),
    .cmd_page_i     (page_i),
    .cmd_part_i     (part_i),
    .cmd_stride_i   (stride_i[A-1:0]),
    .cmd_row_bytes_i(row_bytes_i[A-1:0]),
    .cmd_rows_i     (insn_i.y_size),
    .ax_valid_o     (ar_valid_o),
    .ax_ready_i     (ar_ready_i),
    .ax_addr_o      (ar_addr_a),
    .ax_len_o       (ar_len_o),
    .busy_o         ()
  );

  // ---- Data side: the same transfers, queued for the beat walker ----
  // The queue keeps the bytes the walker needs beside the instruction (the row's bytes, the low
  // bits of base and stride), so no shift lies between its head and the walker's first row.
  // (And the first row's partial beats, part_i, so the walker's first beat count is one sum
  // of the head's registers: worked out from them, the load's was 3.21 ns on the default.)
  // (And whether that row is one beat, for the walker's last-beat flag at the take.)
  logic [1:0] rb_part;
  logic       rb_one, in_one;
  assign in_one = (row_bytes_i[WalkBytesW-1:L] == '0 && part_i == 2'd1) ||
                  (row_bytes_i[WalkBytesW-1:L] == (WalkBytesW - L)'(1) && part_i == 2'd0);
  vta_fifo #(
    .Width  (InsnW + WalkBytesW + 2 * L + 3),
    .Depth  (Depth),
    .LatePop(1'b1)
  ) u_xfer_q (
    .clk_i,
    .rst_ni,
    .in_valid_i (start_i && has_data),
    .in_ready_o (rbq_in_ready),
    .in_data_i  ({in_one, part_i, row_bytes_i[WalkBytesW-1:0], base_i[L-1:0], stride_i[L-1:0],
                  insn_i}),
    .out_valid_o(rbq_valid),
    .out_ready_i(rb_ready),
    .out_data_o ({rb_one, rb_part, rb_rbytes, rb_base_lo, rb_stride_lo, rb_insn_bits}),
    .count_o    (),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );
  assign rb_insn      = rb_insn_bits;
  assign rb_row_bytes = A'(rb_rbytes);
  assign rb_take      = rbq_valid && rb_ready;

  vta_row_beats #(
    .AddrW      (A),
    .RowsW      (RowsW),
    .LogBusBytes(LogBusBytes),
    .RowBytesW  (WalkBytesW),
    .IdleTake   (IdleTake),
    .PartIn     (1'b1),
    .OneIn      (1'b1)
  ) u_beats (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (rbq_valid),
    .cmd_ready_o    (rb_ready),
    .cmd_base_lo_i  (rb_base_lo),
    .cmd_stride_lo_i(rb_stride_lo),
    .cmd_row_bytes_i(rb_row_bytes),
    .cmd_rows_i     (rb_insn.y_size),
    .cmd_part_i     (rb_part),
    .cmd_one_i      (rb_one),
    .valid_o        (rb_valid),
    .step_i         (r_valid_i && beat_ready_i),
    .lo_o           (beat_lo_o),
    .hi_o           (beat_hi_o),
    .last_o         ()
  );

  assign beat_valid_o = r_valid_i;
  assign r_ready_o    = beat_ready_i;
  assign beat_type_o  = rb_type_q;

  // ---- Write sequencer ----
  // The bounds of the data rows and columns and the last position are added up once, when an
  // instruction is taken from the queue, so each write compares counters with registers only.
  // Whether the position lies in the data rows and columns is kept in two flags (in_rows_q,
  // in_cols_q) that each step moves by equality checks against those registers: a flag turns
  // on at the step from the pad's last position (pad - 1) and off at the step from the data's
  // last (end - 1). So the element handshake into the gearbox (elem_want_o) starts at flags,
  // not behind two magnitude comparisons of the counters; it is the gearbox's ready alone, not
  // ANDed with its valid (which the gearbox checks itself), so that one gearbox's valid is not
  // in front of another's pop (the ACC_8BIT gearbox's valid before the ACC gearbox's count
  // was 3.12 ns on the default).
  assign y_total    = YW'(q_head.y_pad_0) + YW'(q_head.y_size) + YW'(q_head.y_pad_1);
  assign x_total    = XW'(q_head.x_pad_0) + XW'(q_head.x_size) + XW'(q_head.x_pad_1);
  assign in_rows    = in_rows_q;
  assign in_cols    = in_cols_q;
  assign is_elem    = in_rows && in_cols;
  assign step       = busy_q && (!is_elem || elem_valid_i);
  assign last_pos   = yl_q && xl_q;
  // x_size = 0 moves nothing (ISA.md: a sync no-op), whatever the pads say. No rows at all is
  // y_total == 0, asked of the fields themselves (the sum cannot wrap), not behind the sum;
  // worked out as the instruction entered the queue (in_empty).
  assign head_empty = q_head_empty;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && q_valid)
      assert (head_empty == ((q_head.x_size == '0) || (q_head.y_pad_0 == '0 &&
                                                        q_head.y_size == '0 &&
                                                        q_head.y_pad_1 == '0)))
      else $error("vta_load_2d: the head's empty flag disagrees with its fields");
    if (rst_ni && q_valid)
      assert (q_y_lm1 == y_total - YW'(2) && q_x_lm1 == x_total - XW'(2) &&
              q_y_one == (y_total == YW'(1)) && q_x_one == (x_total == XW'(1)))
      else $error("vta_load_2d: the head's row and column bounds disagree with its fields");
  end
`endif
  assign q_pop      = !busy_q && q_valid;

  assign wr_valid_o   = step;
  assign wr_addr_o    = addr_q;
  assign wr_is_elem_o = is_elem;
  assign wr_insn_o    = cur_q;
  assign elem_want_o  = busy_q && is_elem;
  assign busy_o       = busy_q || done_q || q_valid;
  assign done_o       = done_q;
  assign done_insn_o  = done_insn_q;
  assign waiting_o    = busy_q && is_elem && !elem_valid_i;

  // x_q against the column window's last and first-but-one positions, as kept levels
  // (vta_cut): three bit pairs per LUT, then their AND, so the column flag's next value is
  // one LUT behind them (abc had mapped the two comparisons and the pick as five LUT and MUXF
  // levels: 3.01 ns on block4).
  localparam int unsigned XG = (XW + 2) / 3;
  logic [3*XG-1:0] xq_w, xe_w, xp_w;
  logic [XG-1:0]   xe_g_w, xp_g_w, xe_g, xp_g;
  logic            x_at_end, x_at_pre;
  assign xq_w = (3 * XG)'(x_q);
  assign xe_w = (3 * XG)'(x_endm1_q);
  assign xp_w = (3 * XG)'(x_pre_q);
  always_comb begin
    for (int g = 0; g < XG; g++) begin
      xe_g_w[g] = xq_w[3*g +: 3] == xe_w[3*g +: 3];
      xp_g_w[g] = xq_w[3*g +: 3] == xp_w[3*g +: 3];
    end
  end
  vta_cut #(.W(2 * XG)) u_x_eq_cut (.i({xe_g_w, xp_g_w}), .o({xe_g, xp_g}));
  assign x_at_end = &xe_g;
  assign x_at_pre = &xp_g;

  always_comb begin
    busy_d      = busy_q;
    done_d      = 1'b0;
    done_insn_d = done_insn_q;
    cur_d       = cur_q;
    y_d         = y_q;
    x_d         = x_q;
    yl_d        = yl_q;
    xl_d        = xl_q;
    addr_d      = addr_q;
    in_rows_d   = in_rows_q;
    in_cols_d   = in_cols_q;
    if (busy_q) begin
      if (step) begin
        addr_d = addr_q + 1'b1;
        if (last_pos) begin
          busy_d      = 1'b0;
          done_d      = 1'b1;
          done_insn_d = cur_q;
        end else if (xl_q) begin
          x_d       = '0;
          xl_d      = x_one_q;
          y_d       = y_q + 1'b1;
          yl_d      = (y_q == y_lm1_q);
          in_cols_d = cols0_q;
          in_rows_d = in_rows_q ? (y_q != y_endm1_q) : (y_any_q && y_q == y_pre_q);
        end else begin
          x_d       = x_q + 1'b1;
          xl_d      = (x_q == x_lm1_q);
          in_cols_d = in_cols_q ? !x_at_end : x_at_pre;
        end
      end
    end else if (q_valid) begin
      // The next accepted instruction (its data may already be waiting in the gearbox).
      cur_d     = q_head;
      y_d       = '0;
      x_d       = '0;
      yl_d      = q_y_one;
      xl_d      = q_x_one;
      addr_d    = q_head.sram_base;
      in_rows_d = (q_head.y_pad_0 == '0) && (q_head.y_size != '0);
      in_cols_d = (q_head.x_pad_0 == '0) && (q_head.x_size != '0);
      if (head_empty) begin
        done_d      = 1'b1;
        done_insn_d = q_head;
      end else begin
        busy_d = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      done_q      <= 1'b0;
      y_q         <= '0;
      x_q         <= '0;
      yl_q        <= 1'b0;
      xl_q        <= 1'b0;
      addr_q      <= '0;
      cur_q       <= '0;
      done_insn_q <= '0;
      rb_type_q   <= '0;
      in_rows_q   <= 1'b0;
      in_cols_q   <= 1'b0;
    end else begin
      in_rows_q   <= in_rows_d;
      in_cols_q   <= in_cols_d;
      busy_q      <= busy_d;
      done_q      <= done_d;
      y_q         <= y_d;
      x_q         <= x_d;
      yl_q        <= yl_d;
      xl_q        <= xl_d;
      addr_q      <= addr_d;
      cur_q       <= cur_d;
      done_insn_q <= done_insn_d;
      if (rb_take) rb_type_q <= rb_insn.memory_type;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!busy_q && q_valid) begin
      y_pre_q   <= YW'(q_head.y_pad_0) - 1'b1;
      y_endm1_q <= YW'(q_head.y_pad_0) + YW'(q_head.y_size) - 1'b1;
      y_any_q   <= q_head.y_size != '0;
      y_lm1_q   <= q_y_lm1;
      x_pre_q   <= XW'(q_head.x_pad_0) - 1'b1;
      x_endm1_q <= XW'(q_head.x_pad_0) + XW'(q_head.x_size) - 1'b1;
      cols0_q   <= (q_head.x_pad_0 == '0) && (q_head.x_size != '0);
      x_lm1_q   <= q_x_lm1;
      x_one_q   <= q_x_one;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && start_i) begin
      assert (ready_o) else $error("vta_load_2d: start while not ready");
    end
    if (rst_ni && r_valid_i) begin
      assert (rb_valid) else $error("vta_load_2d: read data with no transfer in progress");
    end
    if (rst_ni && busy_q) begin
      assert (in_rows_q == (y_q >= YW'(cur_q.y_pad_0) &&
                            y_q < YW'(cur_q.y_pad_0) + YW'(cur_q.y_size)) &&
              in_cols_q == (x_q >= XW'(cur_q.x_pad_0) &&
                            x_q < XW'(cur_q.x_pad_0) + XW'(cur_q.x_size)))
      else $error("vta_load_2d: the row/column flags disagree with the position (%0d, %0d)", y_q,
                  x_q);
      assert (yl_q == (y_q == YW'(cur_q.y_pad_0) + YW'(cur_q.y_size) + YW'(cur_q.y_pad_1) - 1'b1)
              && xl_q == (x_q == XW'(cur_q.x_pad_0) + XW'(cur_q.x_size) + XW'(cur_q.x_pad_1) -
                          1'b1))
      else $error("vta_load_2d: the last row/column flags disagree with the position (%0d, %0d)",
                  y_q, x_q);
    end
  end
`endif
endmodule

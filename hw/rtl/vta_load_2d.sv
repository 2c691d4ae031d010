// vta_load_2d - the 2-D DMA with zero padding shared by the load and compute modules.
//
// One LOAD instruction at a time. Three parts run concurrently: vta_burst_gen issues the read
// bursts of all rows as soon as the instruction starts; vta_row_beats tags each returning beat
// with the bytes that belong to the transfer; and a write sequencer walks the destination buffer
// from sram_base in the order of ISA.md section 3 (y_pad_0 rows of zeros, then each row as
// x_pad_0 zeros, x_size elements, x_pad_1 zeros, then y_pad_1 rows of zeros), writing one entry
// per cycle: a zero, or the next element from the parent's gearbox when one is ready. The parent
// owns the gearboxes (their element width depends on the memory type) and the buffers; this
// module only says which entry to write and whether it is data or padding. done_o pulses in
// the cycle after the last write, when every write has landed.
module vta_load_2d
  import vta_pkg::*;
(
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    start_i,          // only when !busy_o
  input  memory_insn_t               insn_i,
  input  logic [3:0]              log_elem_bytes_i, // element size in DRAM of insn's type
  output logic                    busy_o,
  output logic                    done_o,
  output logic                    waiting_o,        // busy but no element ready (memory stall)
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
  // elements from the parent's gearbox
  input  logic                    elem_valid_i,
  output logic                    elem_take_o,
  // buffer writes: entry index (the parent keeps the bits its buffer needs) and data/zero
  output logic                    wr_valid_o,
  output logic [MemorySramBaseW-1:0] wr_addr_o,
  output logic                    wr_is_elem_o
);
  localparam int unsigned A = AxiAddrWidth;
  localparam int unsigned RowsW = MemoryYSizeW;
  // Position counters cover pads on both sides of a size field.
  localparam int unsigned YW = MemoryYSizeW + 1;
  localparam int unsigned XW = MemoryXSizeW + 1;

  memory_insn_t       insn_q;
  logic            busy_d, busy_q, done_d, done_q;
  logic [YW-1:0]   y_d, y_q, y_total;
  logic [XW-1:0]   x_d, x_q, x_total;
  logic [MemorySramBaseW-1:0] addr_d, addr_q;
  logic            in_rows, in_cols, is_elem, step, last_pos;
  logic            cmd_valid, bg_ready, rb_ready, rb_valid;
  logic [A-1:0]    base, stride, row_bytes;

  // Byte geometry of the DRAM side, from the instruction being started.
  assign base      = A'(insn_i.dram_base) << log_elem_bytes_i;
  assign stride    = A'(insn_i.x_stride) << log_elem_bytes_i;
  assign row_bytes = A'(insn_i.x_size) << log_elem_bytes_i;
  assign cmd_valid = start_i && (insn_i.x_size != '0) && (insn_i.y_size != '0);

  vta_burst_gen #(
    .AddrW      (A),
    .RowsW      (RowsW),
    .LogBusBytes(LogBusBytes),
    .MaxBeats   (16)
  ) u_bursts (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (cmd_valid),
    .cmd_ready_o    (bg_ready),
    .cmd_base_i     (base),
    .cmd_stride_i   (stride),
    .cmd_row_bytes_i(row_bytes),
    .cmd_rows_i     (insn_i.y_size),
    .ax_valid_o     (ar_valid_o),
    .ax_ready_i     (ar_ready_i),
    .ax_addr_o      (ar_addr_o),
    .ax_len_o       (ar_len_o),
    .busy_o         ()
  );

  vta_row_beats #(
    .AddrW      (A),
    .RowsW      (RowsW),
    .LogBusBytes(LogBusBytes)
  ) u_beats (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (cmd_valid),
    .cmd_ready_o    (rb_ready),
    .cmd_base_i     (base),
    .cmd_stride_i   (stride),
    .cmd_row_bytes_i(row_bytes),
    .cmd_rows_i     (insn_i.y_size),
    .valid_o        (rb_valid),
    .step_i         (r_valid_i && beat_ready_i),
    .lo_o           (beat_lo_o),
    .hi_o           (beat_hi_o),
    .last_o         ()
  );

  assign beat_valid_o = r_valid_i;
  assign r_ready_o    = beat_ready_i;

  // Write sequencer.
  assign y_total   = YW'(insn_q.y_pad_0) + YW'(insn_q.y_size) + YW'(insn_q.y_pad_1);
  assign x_total   = XW'(insn_q.x_pad_0) + XW'(insn_q.x_size) + XW'(insn_q.x_pad_1);
  assign in_rows   = (y_q >= YW'(insn_q.y_pad_0)) && (y_q < YW'(insn_q.y_pad_0) + YW'(insn_q.y_size));
  assign in_cols   = (x_q >= XW'(insn_q.x_pad_0)) && (x_q < XW'(insn_q.x_pad_0) + XW'(insn_q.x_size));
  assign is_elem   = in_rows && in_cols;
  assign step      = busy_q && (!is_elem || elem_valid_i);
  assign last_pos  = (y_q == y_total - 1'b1) && (x_q == x_total - 1'b1);

  assign wr_valid_o   = step;
  assign wr_addr_o    = addr_q;
  assign wr_is_elem_o = is_elem;
  assign elem_take_o  = step && is_elem;
  assign busy_o       = busy_q;
  assign done_o       = done_q;
  assign waiting_o    = busy_q && is_elem && !elem_valid_i;

  always_comb begin
    busy_d = busy_q;
    done_d = 1'b0;
    y_d    = y_q;
    x_d    = x_q;
    addr_d = addr_q;
    if (start_i) begin
      // x_size = 0 moves nothing (ISA.md: a sync no-op), whatever the pads say.
      if (insn_i.x_size == '0 || (YW'(insn_i.y_pad_0) + YW'(insn_i.y_size) + YW'(insn_i.y_pad_1)) == '0) begin
        done_d = 1'b1;
      end else begin
        busy_d = 1'b1;
      end
      y_d    = '0;
      x_d    = '0;
      addr_d = insn_i.sram_base;
    end else if (step) begin
      addr_d = addr_q + 1'b1;
      if (last_pos) begin
        busy_d = 1'b0;
        done_d = 1'b1;
      end else if (x_q == x_total - 1'b1) begin
        x_d = '0;
        y_d = y_q + 1'b1;
      end else begin
        x_d = x_q + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      y_q    <= '0;
      x_q    <= '0;
      addr_q <= '0;
      insn_q <= '0;
    end else begin
      busy_q <= busy_d;
      done_q <= done_d;
      y_q    <= y_d;
      x_q    <= x_d;
      addr_q <= addr_d;
      if (start_i) insn_q <= insn_i;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && start_i) begin
      assert (!busy_q && bg_ready && rb_ready) else $error("vta_load_2d: start while busy");
    end
    if (rst_ni && r_valid_i) begin
      assert (rb_valid) else $error("vta_load_2d: read data with no transfer in progress");
    end
  end
`endif
endmodule

// vta_row_beats - walks the beats of a 2-D transfer in order and says which bytes of each beat
// belong to the transfer.
//
// The data side of a DMA needs, for every beat, the first and last byte that carry data (lo,
// hi): rows need not start or end on a beat boundary when elements are narrower than the bus.
// This walker takes the same command as vta_burst_gen and steps once per beat, independently of
// how the beats were split into bursts, so address and data sides never exchange row state. The
// next command is taken in the cycle the last beat of the current one steps, so the beats of
// back-to-back transfers are tagged without a gap.
module vta_row_beats #(
  parameter int unsigned AddrW       = 64,
  parameter int unsigned RowsW       = 16,
  parameter int unsigned LogBusBytes = 3
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  logic [AddrW-1:0]       cmd_base_i,
  input  logic [AddrW-1:0]       cmd_stride_i,
  input  logic [AddrW-1:0]       cmd_row_bytes_i,  // > 0
  input  logic [RowsW-1:0]       cmd_rows_i,       // > 0
  output logic                   valid_o,
  input  logic                   step_i,           // the current beat was transferred
  output logic [LogBusBytes-1:0] lo_o,             // first byte of the beat that belongs
  output logic [LogBusBytes-1:0] hi_o,             // last byte of the beat that belongs
  output logic                   last_o            // last beat of the transfer
);
  localparam logic [AddrW-1:0] BusMask = AddrW'((1 << LogBusBytes) - 1);

  logic             active_d, active_q;
  logic [RowsW-1:0] rows_left_d, rows_left_q;
  logic [AddrW-1:0] row_addr_d, row_addr_q, stride_d, stride_q, row_bytes_d, row_bytes_q;
  logic [AddrW-1:0] beat_d, beat_q, beats_d, beats_q, next_row;
  logic [LogBusBytes-1:0] row_end;
  logic             first_beat, last_beat;

  function automatic logic [AddrW-1:0] beats_of(logic [AddrW-1:0] addr, logic [AddrW-1:0] bytes);
    beats_of = ((addr & BusMask) + bytes + BusMask) >> LogBusBytes;
  endfunction

  // Only the byte offset of the row's last byte within its beat matters.
  assign row_end     = row_addr_q[LogBusBytes-1:0] + row_bytes_q[LogBusBytes-1:0] - 1'b1;
  assign next_row    = row_addr_q + stride_q;
  assign first_beat  = (beat_q == '0);
  assign last_beat   = (beat_q == beats_q - 1'b1);
  assign cmd_ready_o = !active_q || (step_i && last_o);
  assign valid_o     = active_q;
  assign lo_o        = first_beat ? row_addr_q[LogBusBytes-1:0] : '0;
  assign hi_o        = last_beat ? row_end : '1;
  assign last_o      = last_beat && (rows_left_q == RowsW'(1));

  always_comb begin
    active_d    = active_q;
    rows_left_d = rows_left_q;
    row_addr_d  = row_addr_q;
    stride_d    = stride_q;
    row_bytes_d = row_bytes_q;
    beat_d      = beat_q;
    beats_d     = beats_q;
    if (active_q && step_i) begin
      if (last_beat) begin
        if (rows_left_q == RowsW'(1)) active_d = 1'b0;
        rows_left_d = rows_left_q - 1'b1;
        row_addr_d  = next_row;
        beat_d      = '0;
        beats_d     = beats_of(next_row, row_bytes_q);
      end else begin
        beat_d = beat_q + 1'b1;
      end
    end
    if (cmd_valid_i && cmd_ready_o) begin
      active_d    = 1'b1;
      rows_left_d = cmd_rows_i;
      row_addr_d  = cmd_base_i;
      stride_d    = cmd_stride_i;
      row_bytes_d = cmd_row_bytes_i;
      beat_d      = '0;
      beats_d     = beats_of(cmd_base_i, cmd_row_bytes_i);
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      active_q    <= 1'b0;
      rows_left_q <= '0;
      row_addr_q  <= '0;
      stride_q    <= '0;
      row_bytes_q <= '0;
      beat_q      <= '0;
      beats_q     <= '0;
    end else begin
      active_q    <= active_d;
      rows_left_q <= rows_left_d;
      row_addr_q  <= row_addr_d;
      stride_q    <= stride_d;
      row_bytes_q <= row_bytes_d;
      beat_q      <= beat_d;
      beats_q     <= beats_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && step_i) assert (active_q) else $error("vta_row_beats: step with no transfer");
  end
`endif
endmodule

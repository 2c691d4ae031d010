// vta_burst_gen - turns a 2-D transfer (rows of row_bytes at a byte stride) into AXI4 INCR
// bursts of whole bus beats.
//
// Each row is covered by the aligned beats that contain it; a burst never exceeds MaxBeats and
// never crosses a 4 KiB boundary (AXI4 rule). The generator runs ahead of the data: it issues
// every burst of a transfer as fast as the address channel accepts them, so with a memory of
// long latency several bursts are in flight and the data channel stays busy back to back. The
// next row's first burst is computed in the same cycle as the previous row's last one, so a
// transfer of many short rows still issues one burst per cycle.
module vta_burst_gen #(
  parameter int unsigned AddrW       = 64,
  parameter int unsigned RowsW       = 16,
  parameter int unsigned LogBusBytes = 3,
  parameter int unsigned MaxBeats    = 16   // a power of two >= 2
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             cmd_valid_i,
  output logic             cmd_ready_o,
  input  logic [AddrW-1:0] cmd_base_i,
  input  logic [AddrW-1:0] cmd_stride_i,     // bytes between row starts
  input  logic [AddrW-1:0] cmd_row_bytes_i,  // > 0
  input  logic [RowsW-1:0] cmd_rows_i,       // > 0
  output logic             ax_valid_o,
  input  logic             ax_ready_i,
  output logic [AddrW-1:0] ax_addr_o,
  output logic [7:0]       ax_len_o,         // beats - 1
  output logic             busy_o
);
  localparam logic [AddrW-1:0] BusMask = AddrW'((1 << LogBusBytes) - 1);
  localparam int unsigned LogMaxBeats = $clog2(MaxBeats);
  // Beats from an address to the next 4 KiB boundary: at most PageBeats.
  localparam int unsigned PageBeats = 4096 >> LogBusBytes;
  localparam int unsigned PageW = $clog2(PageBeats + 1);
  localparam int unsigned LenW = LogMaxBeats + 1;

  logic             active_d, active_q;
  logic [RowsW-1:0] rows_left_d, rows_left_q;
  logic [AddrW-1:0] row_addr_d, row_addr_q, stride_d, stride_q, row_bytes_d, row_bytes_q;
  logic [AddrW-1:0] cur_d, cur_q, beats_left_d, beats_left_q, next_row;
  logic [PageW-1:0] to_4k_d, to_4k_q;
  logic [LenW-1:0]  len_d, len_q;
  logic             row_last;

  // Beats covering [addr, addr + bytes).
  function automatic logic [AddrW-1:0] beats_of(logic [AddrW-1:0] addr, logic [AddrW-1:0] bytes);
    beats_of = ((addr & BusMask) + bytes + BusMask) >> LogBusBytes;
  endfunction
  // Beats from the beat holding addr to the next 4 KiB boundary (addr's low 12 bits only).
  function automatic logic [PageW-1:0] page_beats(logic [11:0] addr);
    logic [11:0] beat;
    beat = addr & ~12'((1 << LogBusBytes) - 1);
    page_beats = PageW'((13'd4096 - {1'b0, beat}) >> LogBusBytes);
  endfunction
  // A burst's length, min(beats left in the row, MaxBeats, beats to the 4 KiB boundary). The
  // comparison with MaxBeats (a power of two) looks at bits, not through a carry chain.
  function automatic logic [LenW-1:0] burst_len(logic [AddrW-1:0] left, logic [PageW-1:0] page);
    logic [LenW-1:0] l;
    if ((|left[AddrW-1:LogMaxBeats+1]) || (left[LogMaxBeats] && (|left[LogMaxBeats-1:0])))
      l = LenW'(MaxBeats);
    else l = left[LenW-1:0];
    if (PageW'(l) > page) l = LenW'(page);
    burst_len = l;
  endfunction

  // Every register of the next burst (its address, length, the beats left to the 4 KiB
  // boundary) is worked out in the cycle the current one is accepted, so the address channel
  // sees registers only: the length is not recomputed from the address in the issuing cycle.
  // The beats to the boundary count down with the bursts instead of being subtracted from the
  // address.
  assign cmd_ready_o = !active_q;
  assign ax_valid_o  = active_q;
  assign ax_addr_o   = cur_q;
  assign ax_len_o    = 8'(len_q) - 8'd1;
  assign busy_o      = active_q;
  assign next_row    = row_addr_q + stride_q;
  assign row_last    = (beats_left_q == AddrW'(len_q));

  always_comb begin
    active_d     = active_q;
    rows_left_d  = rows_left_q;
    row_addr_d   = row_addr_q;
    stride_d     = stride_q;
    row_bytes_d  = row_bytes_q;
    cur_d        = cur_q;
    beats_left_d = beats_left_q;
    to_4k_d      = to_4k_q;
    if (cmd_valid_i && cmd_ready_o) begin
      active_d     = 1'b1;
      rows_left_d  = cmd_rows_i;
      row_addr_d   = cmd_base_i;
      stride_d     = cmd_stride_i;
      row_bytes_d  = cmd_row_bytes_i;
      cur_d        = cmd_base_i & ~BusMask;
      beats_left_d = beats_of(cmd_base_i, cmd_row_bytes_i);
      to_4k_d      = page_beats(cmd_base_i[11:0]);
    end else if (ax_valid_o && ax_ready_i) begin
      if (row_last) begin
        if (rows_left_q == RowsW'(1)) begin
          active_d = 1'b0;
        end else begin
          rows_left_d  = rows_left_q - 1'b1;
          row_addr_d   = next_row;
          cur_d        = next_row & ~BusMask;
          beats_left_d = beats_of(next_row, row_bytes_q);
          to_4k_d      = page_beats(next_row[11:0]);
        end
      end else begin
        cur_d        = cur_q + (AddrW'(len_q) << LogBusBytes);
        beats_left_d = beats_left_q - AddrW'(len_q);
        to_4k_d      = (to_4k_q == PageW'(len_q)) ? PageW'(PageBeats) : to_4k_q - PageW'(len_q);
      end
    end
    len_d = burst_len(beats_left_d, to_4k_d);
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      active_q     <= 1'b0;
      rows_left_q  <= '0;
      row_addr_q   <= '0;
      stride_q     <= '0;
      row_bytes_q  <= '0;
      cur_q        <= '0;
      beats_left_q <= '0;
      to_4k_q      <= '0;
      len_q        <= '0;
    end else begin
      active_q     <= active_d;
      rows_left_q  <= rows_left_d;
      row_addr_q   <= row_addr_d;
      stride_q     <= stride_d;
      row_bytes_q  <= row_bytes_d;
      cur_q        <= cur_d;
      beats_left_q <= beats_left_d;
      to_4k_q      <= to_4k_d;
      len_q        <= len_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && cmd_valid_i && cmd_ready_o) begin
      assert (cmd_rows_i != '0 && cmd_row_bytes_i != '0)
      else $error("vta_burst_gen: empty transfer");
    end
  end
`endif
endmodule

// vta_rd_gearbox - converts a stream of bus beats into a stream of elements.
//
// Two shapes, chosen at elaboration: an element at least as wide as the bus is assembled from
// ElemBytes/BusBytes consecutive beats (elements are then always beat-aligned, since element
// addresses are multiples of the element size); an element narrower than the bus is cut out of
// a beat, one per cycle, from byte lo to byte hi of that beat (the parts of the first and last
// beats of a row that belong to neighbouring data are skipped). Either way a new beat is taken
// in the cycle the previous one is used up, so the stream runs at full rate.
module vta_rd_gearbox #(
  parameter int unsigned ElemBytes = 16,
  parameter int unsigned BusBytes  = 8
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          in_valid_i,
  output logic                          in_ready_o,
  input  logic [BusBytes*8-1:0]         in_data_i,
  input  logic [$clog2(BusBytes)-1:0]   in_lo_i,
  input  logic [$clog2(BusBytes)-1:0]   in_hi_i,
  output logic                          out_valid_o,
  input  logic                          out_ready_i,
  output logic [ElemBytes*8-1:0]        out_data_o
);
  localparam int unsigned ElemW = ElemBytes * 8;
  localparam int unsigned BusW = BusBytes * 8;

  if (ElemBytes >= BusBytes) begin : g_wide
    localparam int unsigned Beats = ElemBytes / BusBytes;
    localparam int unsigned CntW = $clog2(Beats + 1);
    logic [ElemW-1:0] elem_d, elem_q;
    logic [CntW-1:0] cnt_d, cnt_q;
    logic full, full_d, full_q, in_fire;

    // Whether the element is whole is a register of its own (full_q == (cnt_q == Beats)): the
    // load's write sequencer decides on it, and its write enable reaches the ACC bank's
    // distributed RAM, whose write-enable setup is long, in the same cycle.
    assign full        = full_q;
    assign in_fire     = in_valid_i && in_ready_o;
    assign full_d      = in_fire ? ((full && out_ready_i) ? (Beats == 1)
                                                      : (cnt_q == CntW'(Beats - 1)))
                                 : (full && !out_ready_i);
    assign out_valid_o = full;
    assign out_data_o  = elem_q;
    assign in_ready_o  = !full || out_ready_i;

    always_comb begin
      elem_d = elem_q;
      cnt_d  = cnt_q;
      if (full && out_ready_i) cnt_d = '0;
      if (in_fire) begin
        // Beats arrive lowest address first: shift down so beat 0 ends at the bottom.
        elem_d = ElemW'({in_data_i, elem_q} >> BusW);
        cnt_d = cnt_d + 1'b1;
      end
    end

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        cnt_q  <= '0;
        full_q <= 1'b0;
      end else begin
        cnt_q  <= cnt_d;
        full_q <= full_d;
      end
    end
    always_ff @(posedge clk_i) elem_q <= elem_d;
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (rst_ni) assert (full_q == (cnt_q == CntW'(Beats)))
                  else $error("vta_rd_gearbox: the whole-element flag disagrees with the count");
    end
`endif

    logic unused_tags;
    assign unused_tags = ^{in_lo_i, in_hi_i};
  end else begin : g_narrow
    localparam int unsigned PerBeat = BusBytes / ElemBytes;
    localparam int unsigned LogElem = $clog2(ElemBytes);
    localparam int unsigned IdxW = $clog2(PerBeat);
    logic [BusW-1:0] beat_q;
    logic            held_d, held_q;
    logic [IdxW-1:0] idx_d, idx_q, last_d, last_q;
    logic            done;

    assign out_valid_o = held_q;
    assign out_data_o  = beat_q[idx_q*ElemW+:ElemW];
    assign done        = held_q && out_ready_i && (idx_q == last_q);
    assign in_ready_o  = !held_q || done;

    always_comb begin
      held_d = held_q;
      idx_d  = idx_q;
      last_d = last_q;
      if (held_q && out_ready_i) begin
        idx_d = idx_q + 1'b1;
        if (done) held_d = 1'b0;
      end
      if (in_valid_i && in_ready_o) begin
        held_d = 1'b1;
        idx_d  = IdxW'(in_lo_i >> LogElem);
        last_d = IdxW'(in_hi_i >> LogElem);
      end
    end

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        held_q <= 1'b0;
        idx_q  <= '0;
        last_q <= '0;
      end else begin
        held_q <= held_d;
        idx_q  <= idx_d;
        last_q <= last_d;
      end
    end
    always_ff @(posedge clk_i) begin
      if (in_valid_i && in_ready_o) beat_q <= in_data_i;
    end
  end
endmodule

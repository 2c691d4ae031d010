// vta_wr_gearbox - converts a stream of elements into bus beats with byte strobes.
//
// The mirror of vta_rd_gearbox. A beat "slot" (from vta_row_beats) says which bytes of the next
// beat belong to the transfer. An element at least as wide as the bus is sent as
// ElemBytes/BusBytes full beats; narrower elements are packed into the slot's bytes lo..hi and
// the beat leaves with strobes on exactly those bytes, so a row that starts or ends inside a beat
// does not touch its neighbours in DRAM.
module vta_wr_gearbox #(
  parameter int unsigned ElemBytes = 16,
  parameter int unsigned BusBytes  = 8
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        in_valid_i,
  output logic                        in_ready_o,
  input  logic [ElemBytes*8-1:0]      in_data_i,
  input  logic                        slot_valid_i,
  output logic                        slot_step_o,
  input  logic [$clog2(BusBytes)-1:0] slot_lo_i,
  input  logic [$clog2(BusBytes)-1:0] slot_hi_i,
  output logic                        out_valid_o,
  input  logic                        out_ready_i,
  output logic [BusBytes*8-1:0]       out_data_o,
  output logic [BusBytes-1:0]         out_strb_o
);
  localparam int unsigned ElemW = ElemBytes * 8;
  localparam int unsigned BusW = BusBytes * 8;

  if (ElemBytes >= BusBytes) begin : g_wide
    localparam int unsigned Beats = ElemBytes / BusBytes;
    localparam int unsigned CntW = (Beats > 1) ? $clog2(Beats) : 1;
    logic [ElemW-1:0] elem_q;
    logic             held_d, held_q;
    logic [CntW-1:0]  cnt_d, cnt_q;
    logic             fire, last;

    assign out_valid_o = held_q && slot_valid_i;
    assign out_data_o  = elem_q[cnt_q*BusW+:BusW];
    assign out_strb_o  = '1;
    assign fire        = out_valid_o && out_ready_i;
    assign slot_step_o = fire;
    assign last        = (cnt_q == CntW'(Beats - 1));
    assign in_ready_o  = !held_q || (fire && last);

    always_comb begin
      held_d = held_q;
      cnt_d  = cnt_q;
      if (fire) begin
        cnt_d = last ? '0 : cnt_q + 1'b1;
        if (last) held_d = 1'b0;
      end
      if (in_valid_i && in_ready_o) held_d = 1'b1;
    end

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        held_q <= 1'b0;
        cnt_q  <= '0;
      end else begin
        held_q <= held_d;
        cnt_q  <= cnt_d;
      end
    end
    always_ff @(posedge clk_i) begin
      if (in_valid_i && in_ready_o) elem_q <= in_data_i;
    end

    logic unused_tags;
    assign unused_tags = ^{slot_lo_i, slot_hi_i};
  end else begin : g_narrow
    localparam int unsigned PerBeat = BusBytes / ElemBytes;
    localparam int unsigned LogElem = $clog2(ElemBytes);
    localparam int unsigned IdxW = $clog2(PerBeat);
    logic [BusW-1:0]     acc_d, acc_q, out_data_d, out_data_q;
    logic [BusBytes-1:0] strb_d, strb_q, out_strb_d, out_strb_q;
    logic [IdxW-1:0]     idx_d, idx_q;
    logic                started_d, started_q, out_valid_d, out_valid_q;
    logic [IdxW-1:0]     pos, last_pos;
    logic                out_free, take, completes;

    // The position of the next element in the slot: the slot's first byte when the beat has
    // just begun, else one past the previous element.
    assign pos        = started_q ? idx_q : IdxW'(slot_lo_i >> LogElem);
    assign last_pos   = IdxW'(slot_hi_i >> LogElem);
    assign completes  = (pos == last_pos);
    assign out_free   = !out_valid_q || out_ready_i;
    assign take       = in_valid_i && slot_valid_i && (!completes || out_free);
    assign in_ready_o = slot_valid_i && (!completes || out_free);
    assign slot_step_o = take && completes;
    assign out_valid_o = out_valid_q;
    assign out_data_o  = out_data_q;
    assign out_strb_o  = out_strb_q;

    logic [BusW-1:0]     data;
    logic [BusBytes-1:0] strb;
    always_comb begin
      data        = started_q ? acc_q : '0;
      strb        = started_q ? strb_q : '0;
      // A loop over the positions, not a part-select at pos * ElemW: synthesis made that a
      // shifter with a 20-bit negation in front of it, on the write channel's longest path.
      for (int p = 0; p < PerBeat; p++) begin
        if (pos == IdxW'(p)) begin
          data[p*ElemW+:ElemW]       = in_data_i;
          strb[p*ElemBytes+:ElemBytes] = '1;
        end
      end
      acc_d       = acc_q;
      strb_d      = strb_q;
      idx_d       = idx_q;
      started_d   = started_q;
      out_data_d  = out_data_q;
      out_strb_d  = out_strb_q;
      out_valid_d = out_valid_q && !out_ready_i;
      if (take) begin
        if (completes) begin
          out_data_d  = data;
          out_strb_d  = strb;
          out_valid_d = 1'b1;
          started_d   = 1'b0;
        end else begin
          acc_d     = data;
          strb_d    = strb;
          idx_d     = pos + 1'b1;
          started_d = 1'b1;
        end
      end
    end

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        idx_q       <= '0;
        started_q   <= 1'b0;
        out_valid_q <= 1'b0;
        strb_q      <= '0;
        out_strb_q  <= '0;
      end else begin
        idx_q       <= idx_d;
        started_q   <= started_d;
        out_valid_q <= out_valid_d;
        strb_q      <= strb_d;
        out_strb_q  <= out_strb_d;
      end
    end
    always_ff @(posedge clk_i) begin
      acc_q      <= acc_d;
      out_data_q <= out_data_d;
    end
  end
endmodule

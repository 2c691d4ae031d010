// vta_axi_rd_arb - shares the AXI4 read channels between fetch, load and compute.
//
// Address requests are granted round-robin into a register that holds ARVALID and the address
// stable until the slave accepts them (the AXI handshake rule), refilled in the cycle it empties,
// so back-to-back bursts from any mix of clients go out one per cycle. Each request carries its
// client's index as ARID and read data is routed back by RID: responses of one ID return in
// order, and every client accepts all data it asked for (each reserves room before it asks),
// so one client never blocks another on the shared data channel.
module vta_axi_rd_arb #(
  parameter int unsigned N     = 3,
  parameter int unsigned AddrW = 64,
  parameter int unsigned IdW   = 2
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [N-1:0]            ar_valid_i,
  output logic [N-1:0]            ar_ready_o,
  input  logic [N*AddrW-1:0]      ar_addr_i,  // client c at [c*AddrW +: AddrW]
  input  logic [N*8-1:0]          ar_len_i,   // client c at [c*8 +: 8]
  output logic [N-1:0]            r_valid_o,
  input  logic [N-1:0]            r_ready_i,
  // master side
  output logic                    m_ar_valid_o,
  input  logic                    m_ar_ready_i,
  output logic [AddrW-1:0]        m_ar_addr_o,
  output logic [7:0]              m_ar_len_o,
  output logic [IdW-1:0]          m_ar_id_o,
  input  logic                    m_r_valid_i,
  output logic                    m_r_ready_o,
  input  logic [IdW-1:0]          m_r_id_i
);
  logic             full_d, full_q, take;
  logic [AddrW-1:0] addr_d, addr_q;
  logic [7:0]       len_d, len_q;
  logic [IdW-1:0]   id_d, id_q, last_d, last_q;
  logic [IdW-1:0]   pick;
  logic [N-1:0]     gnt;  // pick, one-hot
  logic             any;
  logic [AddrW-1:0] pick_addr;
  logic [7:0]       pick_len;

  // Round-robin: the first valid client after the last one granted. The order is spelled out
  // for each last client (constant indices), so the grant is a few LUT levels, not sums.
  always_comb begin
    gnt = '0;
    for (int l = 0; l < N; l++) begin
      if (last_q == IdW'(l)) begin
        for (int k = N; k >= 1; k--) begin
          if (ar_valid_i[(l + k) % N]) gnt = N'(1) << ((l + k) % N);
        end
      end
    end
    any       = |ar_valid_i;
    pick      = '0;
    pick_addr = '0;
    pick_len  = '0;
    for (int c = 0; c < N; c++) begin
      if (gnt[c]) begin
        pick      = pick | IdW'(c);
        pick_addr = pick_addr | ar_addr_i[c*AddrW+:AddrW];
        pick_len  = pick_len | ar_len_i[c*8+:8];
      end
    end
  end

  assign take = any && (!full_q || m_ar_ready_i);

  always_comb begin
    ar_ready_o = take ? gnt : '0;
    full_d = full_q && !m_ar_ready_i;
    addr_d = addr_q;
    len_d  = len_q;
    id_d   = id_q;
    last_d = last_q;
    if (take) begin
      full_d = 1'b1;
      addr_d = pick_addr;
      len_d  = pick_len;
      id_d   = pick;
      last_d = pick;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      full_q <= 1'b0;
      addr_q <= '0;
      len_q  <= '0;
      id_q   <= '0;
      last_q <= '0;
    end else begin
      full_q <= full_d;
      addr_q <= addr_d;
      len_q  <= len_d;
      id_q   <= id_d;
      last_q <= last_d;
    end
  end

  assign m_ar_valid_o = full_q;
  assign m_ar_addr_o  = addr_q;
  assign m_ar_len_o   = len_q;
  assign m_ar_id_o    = id_q;

  always_comb begin
    r_valid_o   = '0;
    m_r_ready_o = 1'b0;
    for (int c = 0; c < N; c++) begin
      if (m_r_id_i == IdW'(c)) begin
        r_valid_o[c] = m_r_valid_i;
        m_r_ready_o  = r_ready_i[c];
      end
    end
  end

`ifndef SYNTHESIS
  // AXI: once ARVALID is up, it and the address stay until ARREADY.
  logic             held_q;
  logic [AddrW-1:0] held_addr_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      held_q      <= m_ar_valid_o && !m_ar_ready_i;
      held_addr_q <= m_ar_addr_o;
      if (held_q) begin
        assert (m_ar_valid_o && m_ar_addr_o == held_addr_q)
        else $error("vta_axi_rd_arb: ARVALID or ARADDR changed before ARREADY");
      end
    end
  end
`endif
endmodule

// vta_ctrl - the AXI4-Lite control slave: the Vitis ap_ctrl_hs convention, the run arguments
// and read-only performance counters.
//
// Register map (32-bit registers; 64-bit values are two registers, low word first):
//   0x00 CTRL    bit 0 ap_start (write 1 to start; reads 1 until the run is accepted),
//                bit 1 ap_done (cleared when read), bit 2 ap_idle, bit 3 ap_ready (cleared when
//                read)
//   0x04 GIE     bit 0 global interrupt enable
//   0x08 IER     bit 0 done interrupt enable, bit 1 ready interrupt enable
//   0x0C ISR     bit 0 done, bit 1 ready (write 1 to toggle, i.e. clear)
//   0x10 insn_count   instructions in the stream
//   0x18 insn_addr    64-bit physical address of the stream (0x18 low, 0x1C high)
//   0x20 cycles            0x28 load busy       0x30 compute busy    0x38 store busy
//   0x40 load stall        0x48 compute stall   0x50 store stall     0x58 GEMM micro-ops
//   0x60 MAC micro-ops     0x68 ALU micro-ops   0x70 load insns      0x78 compute insns
//   0x80 store insns       0x88 FINISH count    0x98 dual-issue cycles (GEMM and ALU both
//   wrote a result)        (all 64-bit, read-only, cleared at start)
//   0x90 status: bits 2:0 busy of load/compute/store, bit 3 fetch done
// The same map is documented in docs/hw.md; the kernel is packaged for XRT with this layout.
module vta_ctrl #(
  parameter int unsigned AddrW = 64
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // AXI4-Lite slave
  input  logic             s_awvalid_i,
  output logic             s_awready_o,
  input  logic [7:0]       s_awaddr_i,
  input  logic             s_wvalid_i,
  output logic             s_wready_o,
  input  logic [31:0]      s_wdata_i,
  input  logic [3:0]       s_wstrb_i,
  output logic             s_bvalid_o,
  input  logic             s_bready_i,
  output logic [1:0]       s_bresp_o,
  input  logic             s_arvalid_i,
  output logic             s_arready_o,
  input  logic [7:0]       s_araddr_i,
  output logic             s_rvalid_o,
  input  logic             s_rready_i,
  output logic [31:0]      s_rdata_o,
  output logic [1:0]       s_rresp_o,
  output logic             interrupt_o,
  // to the accelerator
  output logic             start_o,       // one-cycle pulse: a run begins
  output logic [31:0]      insn_count_o,
  output logic [AddrW-1:0] insn_addr_o,
  input  logic             done_i,        // level: the run has completed
  // counter events
  input  logic [2:0]       busy_i,        // load, compute, store
  input  logic [2:0]       stall_i,
  input  logic [2:0]       insn_done_i,
  input  logic             gemm_uop_i,
  input  logic             mac_uop_i,
  input  logic             alu_uop_i,
  input  logic             dual_uop_i,
  input  logic             finish_i,
  input  logic             fetch_done_i
);
  localparam int unsigned NCnt = 15;
  // Counter indices (address 0x20 + 8*index, except the last, added after the status register
  // at 0x90: 0x98).
  localparam int unsigned CCycles = 0, CBusy = 1, CStall = 4, CGemm = 7, CMac = 8, CAlu = 9;
  localparam int unsigned CInsns = 10, CFinish = 13, CDual = 14;

  logic        start_q, running_q, done_q, ready_q, gie_q;
  logic [1:0]  ier_q, isr_q;
  logic [31:0] count_q;
  logic [AddrW-1:0] addr_q;
  logic [63:0] cnt_q [NCnt];
  logic        wr, rd, launch, finished;
  logic        bvalid_q, rvalid_q;
  logic [31:0] rdata_q;

  assign wr          = s_awvalid_i && s_wvalid_i && !bvalid_q;
  assign s_awready_o = wr;
  assign s_wready_o  = wr;
  assign s_bvalid_o  = bvalid_q;
  assign s_bresp_o   = 2'b00;
  assign rd          = s_arvalid_i && !rvalid_q;
  assign s_arready_o = rd;
  assign s_rvalid_o  = rvalid_q;
  assign s_rdata_o   = rdata_q;
  assign s_rresp_o   = 2'b00;

  assign launch   = start_q && !running_q;
  assign finished = running_q && done_i;
  assign start_o  = launch;
  assign insn_count_o = count_q;
  assign insn_addr_o  = addr_q;
  assign interrupt_o  = gie_q && |(ier_q & isr_q);

  function automatic logic [31:0] merge(logic [31:0] old, logic [31:0] d, logic [3:0] strb);
    logic [31:0] r;
    for (int b = 0; b < 4; b++) r[b*8+:8] = strb[b] ? d[b*8+:8] : old[b*8+:8];
    merge = r;
  endfunction

  // Read mux.
  localparam int unsigned CntIdxW = $clog2(NCnt);
  logic [31:0] rval;
  logic [CntIdxW-1:0] cnt_idx;
  assign cnt_idx = CntIdxW'((s_araddr_i - 8'h20) >> 3);
  always_comb begin
    rval = '0;
    unique case (s_araddr_i)
      8'h00: rval = {28'b0, ready_q, !running_q, done_q, start_q};
      8'h04: rval = {31'b0, gie_q};
      8'h08: rval = {30'b0, ier_q};
      8'h0C: rval = {30'b0, isr_q};
      8'h10: rval = count_q;
      8'h18: rval = addr_q[31:0];
      8'h1C: rval = 32'(addr_q >> 32);
      8'h90: rval = {28'b0, fetch_done_i, busy_i};
      8'h98: rval = cnt_q[CDual][31:0];
      8'h9C: rval = cnt_q[CDual][63:32];
      default: begin
        if (s_araddr_i >= 8'h20 && s_araddr_i < 8'(32'h20 + 8 * CDual)) begin
          rval = s_araddr_i[2] ? cnt_q[cnt_idx][63:32] : cnt_q[cnt_idx][31:0];
        end
      end
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      start_q   <= 1'b0;
      running_q <= 1'b0;
      done_q    <= 1'b0;
      ready_q   <= 1'b0;
      gie_q     <= 1'b0;
      ier_q     <= '0;
      isr_q     <= '0;
      count_q   <= '0;
      addr_q    <= '0;
      bvalid_q  <= 1'b0;
      rvalid_q  <= 1'b0;
      rdata_q   <= '0;
    end else begin
      if (bvalid_q && s_bready_i) bvalid_q <= 1'b0;
      if (rvalid_q && s_rready_i) rvalid_q <= 1'b0;
      if (launch) begin
        start_q   <= 1'b0;
        running_q <= 1'b1;
        ready_q   <= 1'b1;
        isr_q[1]  <= 1'b1;
      end
      if (finished) begin
        running_q <= 1'b0;
        done_q    <= 1'b1;
        isr_q[0]  <= 1'b1;
      end
      if (rd) begin
        rvalid_q <= 1'b1;
        rdata_q  <= rval;
        // ap_done and ap_ready are cleared by reading CTRL.
        if (s_araddr_i == 8'h00) begin
          done_q  <= 1'b0;
          ready_q <= 1'b0;
        end
      end
      if (wr) begin
        bvalid_q <= 1'b1;
        unique case (s_awaddr_i)
          8'h00: if (s_wstrb_i[0] && s_wdata_i[0] && !running_q) start_q <= 1'b1;
          8'h04: if (s_wstrb_i[0]) gie_q <= s_wdata_i[0];
          8'h08: if (s_wstrb_i[0]) ier_q <= s_wdata_i[1:0];
          8'h0C: if (s_wstrb_i[0]) isr_q <= isr_q ^ s_wdata_i[1:0];
          8'h10: count_q <= merge(count_q, s_wdata_i, s_wstrb_i);
          8'h18: addr_q[31:0] <= merge(addr_q[31:0], s_wdata_i, s_wstrb_i);
          8'h1C: addr_q <= {merge(32'(addr_q >> 32), s_wdata_i, s_wstrb_i), addr_q[31:0]};
          default: ;
        endcase
      end
    end
  end

  // Counters: cleared at launch, counting while the run is in progress.
  logic [NCnt-1:0] inc;
  always_comb begin
    inc = '0;
    inc[CCycles] = 1'b1;
    for (int m = 0; m < 3; m++) begin
      inc[CBusy+m]  = busy_i[m];
      inc[CStall+m] = stall_i[m];
      inc[CInsns+m] = insn_done_i[m];
    end
    inc[CGemm]   = gemm_uop_i;
    inc[CMac]    = mac_uop_i;
    inc[CAlu]    = alu_uop_i;
    inc[CFinish] = finish_i;
    inc[CDual]   = dual_uop_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int c = 0; c < NCnt; c++) cnt_q[c] <= '0;
    end else begin
      for (int c = 0; c < NCnt; c++) begin
        if (launch) cnt_q[c] <= '0;
        else if (running_q && inc[c]) cnt_q[c] <= cnt_q[c] + 1'b1;
      end
    end
  end
endmodule

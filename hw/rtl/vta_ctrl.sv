// vta_ctrl - the AXI4-Lite control slave: the Vitis ap_ctrl_hs convention, the run arguments
// and read-only performance counters.
//
// Register map: every offset comes from the generated package (Reg<Name>, CntOffsets), which is
// written from the table of include/vta/regmap.h; docs/hw.md shows the same table. 32-bit
// registers; 64-bit values are two registers, low word first:
//   CTRL    bit 0 ap_start (write 1 to start; reads 1 until the run is accepted), bit 1 ap_done
//           (cleared when read), bit 2 ap_idle, bit 3 ap_ready (cleared when read)
//   GIE     bit 0 global interrupt enable
//   IER     bit 0 done interrupt enable, bit 1 ready interrupt enable
//   ISR     bit 0 done, bit 1 ready (write 1 to toggle, i.e. clear)
//   the arguments (insn_count, insn_addr), the 64-bit read-only counters (cleared at start), the
//   status register (busy of load/compute/store, fetch done) and CONFIG_ID (the configuration
//   the RTL was built for).
module vta_ctrl
  import vta_pkg::*;
#(
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
  localparam int unsigned NCnt = NumCounters;

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
  assign rd          = s_arvalid_i && !rvalid_q && !rpend_q;
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

  // Reads take two cycles: the address is decoded as it is accepted (one flag per register,
  // registered), and the data is then an AND-OR of the flagged register's value, so neither
  // the input address nor a wide multiplexer behind it lies in front of rdata_q (the 40-way
  // multiplexer behind s_araddr_i was 3.2 ns on the default).
  localparam int unsigned NSrc = 9 + 2 * NCnt;
  logic [NSrc-1:0] rsel_d, rsel_q;
  logic [31:0]     rsrc [NSrc];
  logic            rpend_q;  // an address accepted, its data next
  always_comb begin
    rsel_d = '0;
    rsel_d[0] = (s_araddr_i == RegCtrl);
    rsel_d[1] = (s_araddr_i == RegGie);
    rsel_d[2] = (s_araddr_i == RegIer);
    rsel_d[3] = (s_araddr_i == RegIsr);
    rsel_d[4] = (s_araddr_i == RegInsnCount);
    rsel_d[5] = (s_araddr_i == RegInsnAddr);
    rsel_d[6] = (s_araddr_i == RegInsnAddr + 8'h4);
    rsel_d[7] = (s_araddr_i == RegStatus);
    rsel_d[8] = (s_araddr_i == RegConfigId);
    for (int c = 0; c < NCnt; c++) begin
      rsel_d[9 + 2 * c]     = (s_araddr_i == CntOffsets[c*8+:8]);
      rsel_d[9 + 2 * c + 1] = (s_araddr_i == CntOffsets[c*8+:8] + 8'h4);
    end
    rsrc[0] = {28'b0, ready_q, !running_q, done_q, start_q};
    rsrc[1] = {31'b0, gie_q};
    rsrc[2] = {30'b0, ier_q};
    rsrc[3] = {30'b0, isr_q};
    rsrc[4] = count_q;
    rsrc[5] = addr_q[31:0];
    rsrc[6] = 32'(addr_q >> 32);
    rsrc[7] = {28'b0, fetch_done_i, busy_i};
    rsrc[8] = ConfigId;
    for (int c = 0; c < NCnt; c++) begin
      rsrc[9 + 2 * c]     = cnt_q[c][31:0];
      rsrc[9 + 2 * c + 1] = cnt_q[c][63:32];
    end
  end
  logic [31:0] rval;
  always_comb begin
    rval = '0;
    for (int k = 0; k < NSrc; k++) rval = rval | (rsel_q[k] ? rsrc[k] : 32'b0);
  end

  always_ff @(posedge clk_i) begin
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
      rpend_q   <= 1'b0;
      rsel_q    <= '0;
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
        rpend_q <= 1'b1;
        rsel_q  <= rsel_d;
      end
      if (rpend_q) begin
        rpend_q  <= 1'b0;
        rvalid_q <= 1'b1;
        rdata_q  <= rval;
        // ap_done and ap_ready are cleared by reading CTRL.
        if (rsel_q[0]) begin
          done_q  <= 1'b0;
          ready_q <= 1'b0;
        end
      end
      if (wr) begin
        bvalid_q <= 1'b1;
        unique case (s_awaddr_i)
          RegCtrl: if (s_wstrb_i[0] && s_wdata_i[0] && !running_q) start_q <= 1'b1;
          RegGie: if (s_wstrb_i[0]) gie_q <= s_wdata_i[0];
          RegIer: if (s_wstrb_i[0]) ier_q <= s_wdata_i[1:0];
          RegIsr: if (s_wstrb_i[0]) isr_q <= isr_q ^ s_wdata_i[1:0];
          RegInsnCount: count_q <= merge(count_q, s_wdata_i, s_wstrb_i);
          RegInsnAddr: addr_q[31:0] <= merge(addr_q[31:0], s_wdata_i, s_wstrb_i);
          RegInsnAddr + 8'h4:
            addr_q <= {merge(32'(addr_q >> 32), s_wdata_i, s_wstrb_i), addr_q[31:0]};
          default: ;
        endcase
      end
    end
  end

  // Counters: cleared at launch, counting while the run is in progress.
  logic [NCnt-1:0] inc;
  always_comb begin
    inc = '0;
    inc[CntCycles] = 1'b1;
    for (int m = 0; m < 3; m++) begin
      inc[CntBusyLoad+m]  = busy_i[m];
      inc[CntStallLoad+m] = stall_i[m];
      inc[CntInsnsLoad+m] = insn_done_i[m];
    end
    inc[CntGemmUops] = gemm_uop_i;
    inc[CntMacUops]  = mac_uop_i;
    inc[CntAluUops]  = alu_uop_i;
    inc[CntFinish]   = finish_i;
    inc[CntDual]     = dual_uop_i;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int c = 0; c < NCnt; c++) cnt_q[c] <= '0;
    end else begin
      for (int c = 0; c < NCnt; c++) begin
        if (launch) cnt_q[c] <= '0;
        else if (running_q && inc[c]) cnt_q[c] <= cnt_q[c] + 1'b1;
      end
    end
  end

`ifndef SYNTHESIS
  // The register offsets are distinct: an address selects at most one of them.
  always_ff @(posedge clk_i) begin
    if (rst_ni && s_arvalid_i) begin
      assert ($onehot0(rsel_d)) else $error("vta_ctrl: offset 0x%02x selects several registers",
                                              s_araddr_i);
    end
  end
`endif
endmodule

// vta_sram - one on-chip buffer: one write port, one synchronous read port.
//
// Read data appears the cycle after the address (block RAM timing), or with OutReg two cycles
// after it, through the block RAM's output register (DOA_REG/DOB_REG: its clock-to-output
// delay is a fraction of the array's, which keeps the read off the critical path); a read of the address being
// written in the same cycle returns the old contents, which the compute pipeline's forwarding
// register accounts for. The array has no reset, like block RAM; it starts zeroed under
// the Verilator model, and its contents persist across runs, as the functional simulator's buffers do.
module vta_sram #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  parameter bit          OutReg = 1'b0
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  if (OutReg) begin : g_out_reg
    logic [Width-1:0] rdata2_q;
    always_ff @(posedge clk_i) begin
      rdata2_q <= rdata_q;
    end
    assign rdata_o = rdata2_q;
  end else begin : g_no_out_reg
    assign rdata_o = rdata_q;
  end

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_q <= mem_q[raddr_i];
  end
endmodule

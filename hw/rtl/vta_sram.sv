// vta_sram - one on-chip buffer: one write port, one synchronous read port.
//
// Read data appears the cycle after the address (block RAM timing); a read of the address being
// written in the same cycle returns the old contents, which the compute pipeline's forwarding
// register accounts for. The array has no reset, like block RAM; it starts zeroed under
// the Verilator model, and its contents persist across runs, as the functional simulator's buffers do.
module vta_sram #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16
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

  assign rdata_o = rdata_q;

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_q <= mem_q[raddr_i];
  end
endmodule

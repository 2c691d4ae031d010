// vta_sram_2w - a buffer in two banks (by the most significant index bit) with two write ports
// and one synchronous read port.
//
// The OUT buffer is written by the GEMM unit and by the ALU, which may both write in the same
// cycle when the compute module runs a GEMM and an ALU instruction together; it admits such a
// pair only when their destinations lie in different banks, so each bank keeps one write port
// (block RAM) and no arbitration is needed. Writes of both ports to one bank in one cycle are an
// error (assertion). Port 0 wins such a collision in synthesis. Read timing is vta_sram's:
// with OutReg the data come through the block RAM's output register, two cycles after the
// address (the register loads every cycle).
module vta_sram_2w #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  parameter bit          OutReg = 1'b0
) (
  input  logic                     clk_i,
  input  logic                     we0_i,
  input  logic [$clog2(Depth)-1:0] waddr0_i,
  input  logic [Width-1:0]         wdata0_i,
  input  logic                     we1_i,
  input  logic [$clog2(Depth)-1:0] waddr1_i,
  input  logic [Width-1:0]         wdata1_i,
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  localparam int unsigned AW = $clog2(Depth);
  localparam int unsigned BW = AW - 1;  // index bits within a bank

  logic [Width-1:0] bank_rdata [2];
  logic             rbank_q, rbank;

  for (genvar b = 0; b < 2; b++) begin : g_bank
    logic          w0, w1;
    logic [BW-1:0] waddr;
    assign w0    = we0_i && (waddr0_i[AW-1] == 1'(b));
    assign w1    = we1_i && (waddr1_i[AW-1] == 1'(b));
    assign waddr = w0 ? waddr0_i[BW-1:0] : waddr1_i[BW-1:0];
    vta_sram #(.Width(Width), .Depth(Depth / 2), .OutReg(OutReg)) u_bank (
      .clk_i,
      .we_i   (w0 || w1),
      .waddr_i(waddr),
      .wdata_i(w0 ? wdata0_i : wdata1_i),
      .re_i   (re_i && (raddr_i[AW-1] == 1'(b))),
      .oe_i   (1'b1),
      .raddr_i(raddr_i[BW-1:0]),
      .rdata_o(bank_rdata[b])
    );
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      assert (!(w0 && w1)) else $error("vta_sram_2w: both write ports write bank %0d", b);
    end
`endif
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rbank_q <= raddr_i[AW-1];
  end
  if (OutReg) begin : g_rbank_reg
    logic rbank_q2;
    always_ff @(posedge clk_i) rbank_q2 <= rbank_q;
    assign rbank = rbank_q2;
  end else begin : g_rbank
    assign rbank = rbank_q;
  end
  assign rdata_o = bank_rdata[rbank];
endmodule

// vta_acc_banks - the compute module's ACC buffer: two banks by the index's most significant
// bit, each held twice (copy a: the GEMM unit's and the ALU's destinations; copy b: the ALU's
// vector operand), so that the two units read different banks in one cycle and the ALU reads
// both of its operands. Every write goes to both copies of its bank: the GEMM unit's (in its
// C3), the ALU's (in its C4) or a LOAD's; one write per bank and cycle (the dispatch keeps the
// units and the loads apart; an assertion checks it), and the GEMM unit's wins in synthesis.
// Reads have the block RAM's output register (vta_sram OutReg): data two cycles after the
// address.
module vta_acc_banks
  import vta_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // reads: the GEMM unit's and the ALU's destination (copy a), the ALU's operand (copy b)
  input  logic                         g_rd_i,
  input  logic [LogAccDepth-1:0]       g_addr_i,
  input  logic                         a_rd_i,
  input  logic [LogAccDepth-1:0]       a_addr_i,
  input  logic [LogAccDepth-1:0]       s_addr_i,
  // copy a and copy b of each bank, bank b at [b*AccW +: AccW] (vectors: yosys 0.23 does not
  // read an unpacked array port)
  output logic [2*AccLanes*AccWidth-1:0] a_rdata_o,
  output logic [2*AccLanes*AccWidth-1:0] b_rdata_o,
  // writes
  input  logic                         g_we_i,
  input  logic [LogAccDepth-1:0]       g_waddr_i,
  input  logic [AccLanes*AccWidth-1:0] g_wdata_i,
  input  logic                         a_we_i,
  input  logic [LogAccDepth-1:0]       a_waddr_i,
  input  logic [AccLanes*AccWidth-1:0] a_wdata_i,
  input  logic                         l_we_i,
  input  logic [LogAccDepth-1:0]       l_waddr_i,
  input  logic [AccLanes*AccWidth-1:0] l_wdata_i
);
  localparam int unsigned AccW = AccLanes * AccWidth;
  localparam int unsigned BankW = LogAccDepth - 1;

  for (genvar b = 0; b < 2; b++) begin : g_acc_bank
    logic            rd_g, rd_a, rd_s, wr_g, wr_a, wr_l, we;
    logic [BankW-1:0] raddr_a, waddr;
    logic [AccW-1:0] wdata;
    assign rd_g    = g_rd_i && (g_addr_i[BankW] == 1'(b));
    assign rd_a    = a_rd_i && (a_addr_i[BankW] == 1'(b));
    assign rd_s    = a_rd_i && (s_addr_i[BankW] == 1'(b));
    assign raddr_a = rd_g ? g_addr_i[BankW-1:0] : a_addr_i[BankW-1:0];
    assign wr_g    = g_we_i && (g_waddr_i[BankW] == 1'(b));
    assign wr_a    = a_we_i && (a_waddr_i[BankW] == 1'(b));
    assign wr_l    = l_we_i && (l_waddr_i[BankW] == 1'(b));
    assign we      = wr_g || wr_a || wr_l;
    always_comb begin
      waddr = l_waddr_i[BankW-1:0];
      wdata = l_wdata_i;
      if (wr_a) begin
        waddr = a_waddr_i[BankW-1:0];
        wdata = a_wdata_i;
      end
      if (wr_g) begin
        waddr = g_waddr_i[BankW-1:0];
        wdata = g_wdata_i;
      end
    end

    vta_sram #(.Width(AccW), .Depth(AccDepth / 2), .OutReg(1'b1)) u_copy_a (
      .clk_i,
      .we_i   (we),
      .waddr_i(waddr),
      .wdata_i(wdata),
      .re_i   (rd_g || rd_a),
      .oe_i   (1'b1),
      .raddr_i(raddr_a),
      .rdata_o(a_rdata_o[b*AccW+:AccW])
    );

    vta_sram #(.Width(AccW), .Depth(AccDepth / 2), .OutReg(1'b1)) u_copy_b (
      .clk_i,
      .we_i   (we),
      .waddr_i(waddr),
      .wdata_i(wdata),
      .re_i   (rd_s),
      .oe_i   (1'b1),
      .raddr_i(s_addr_i[BankW-1:0]),
      .rdata_o(b_rdata_o[b*AccW+:AccW])
    );

`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (rst_ni) begin
        assert (!(rd_g && rd_a)) else $error("vta_acc_banks: both units read ACC bank %0d", b);
        assert (32'(wr_g) + 32'(wr_a) + 32'(wr_l) <= 1)
        else $error("vta_acc_banks: two writes to ACC bank %0d", b);
      end
    end
`endif
  end
endmodule

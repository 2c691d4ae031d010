// vta - the accelerator as a Vitis RTL kernel: Vitis' port names and protocols around vta_top.
//
// Vitis links an RTL kernel by its interface names: ap_clk and ap_rst_n (active-low, synchronous
// to ap_clk), one AXI4-Lite slave s_axi_control (ap_ctrl_hs at 0x00, the arguments from 0x10:
// the register table of include/vta/regmap.h, described to Vitis by the generated kernel.xml),
// one AXI4 master m_axi_gmem with 64-bit addresses and the configuration's data width, and a
// level interrupt. Nothing here computes: the module renames and adapts.
//
// The control window is 4 KiB (kernel.xml's range); vta_ctrl decodes the low 8 address bits, so
// an access above 0xFF is steered to 0xFC, an offset no register uses (reads 0, writes ignored),
// instead of aliasing a register.
module vta
  import vta_pkg::*;
(
  input  logic                    ap_clk,
  input  logic                    ap_rst_n,
  // AXI4-Lite control slave
  input  logic                    s_axi_control_awvalid,
  output logic                    s_axi_control_awready,
  input  logic [11:0]             s_axi_control_awaddr,
  input  logic                    s_axi_control_wvalid,
  output logic                    s_axi_control_wready,
  input  logic [31:0]             s_axi_control_wdata,
  input  logic [3:0]              s_axi_control_wstrb,
  output logic                    s_axi_control_bvalid,
  input  logic                    s_axi_control_bready,
  output logic [1:0]              s_axi_control_bresp,
  input  logic                    s_axi_control_arvalid,
  output logic                    s_axi_control_arready,
  input  logic [11:0]             s_axi_control_araddr,
  output logic                    s_axi_control_rvalid,
  input  logic                    s_axi_control_rready,
  output logic [31:0]             s_axi_control_rdata,
  output logic [1:0]              s_axi_control_rresp,
  // AXI4 memory master
  output logic                    m_axi_gmem_awvalid,
  input  logic                    m_axi_gmem_awready,
  output logic [AxiAddrWidth-1:0] m_axi_gmem_awaddr,
  output logic [1:0]              m_axi_gmem_awid,
  output logic [7:0]              m_axi_gmem_awlen,
  output logic [2:0]              m_axi_gmem_awsize,
  output logic [1:0]              m_axi_gmem_awburst,
  output logic                    m_axi_gmem_wvalid,
  input  logic                    m_axi_gmem_wready,
  output logic [BusWidth-1:0]     m_axi_gmem_wdata,
  output logic [BusBytes-1:0]     m_axi_gmem_wstrb,
  output logic                    m_axi_gmem_wlast,
  input  logic                    m_axi_gmem_bvalid,
  output logic                    m_axi_gmem_bready,
  input  logic [1:0]              m_axi_gmem_bresp,
  input  logic [1:0]              m_axi_gmem_bid,
  output logic                    m_axi_gmem_arvalid,
  input  logic                    m_axi_gmem_arready,
  output logic [AxiAddrWidth-1:0] m_axi_gmem_araddr,
  output logic [1:0]              m_axi_gmem_arid,
  output logic [7:0]              m_axi_gmem_arlen,
  output logic [2:0]              m_axi_gmem_arsize,
  output logic [1:0]              m_axi_gmem_arburst,
  input  logic                    m_axi_gmem_rvalid,
  output logic                    m_axi_gmem_rready,
  input  logic [BusWidth-1:0]     m_axi_gmem_rdata,
  input  logic                    m_axi_gmem_rlast,
  input  logic [1:0]              m_axi_gmem_rresp,
  input  logic [1:0]              m_axi_gmem_rid,
  output logic                    interrupt
);
  localparam logic [7:0] Unused = 8'hFC;

  logic [7:0] awaddr, araddr;
  assign awaddr = s_axi_control_awaddr[11:8] == 4'h0 ? s_axi_control_awaddr[7:0] : Unused;
  assign araddr = s_axi_control_araddr[11:8] == 4'h0 ? s_axi_control_araddr[7:0] : Unused;

  vta_top u_top (
    .clk_i            (ap_clk),
    .rst_ni           (ap_rst_n),
    .s_axil_awvalid_i (s_axi_control_awvalid),
    .s_axil_awready_o (s_axi_control_awready),
    .s_axil_awaddr_i  (awaddr),
    .s_axil_wvalid_i  (s_axi_control_wvalid),
    .s_axil_wready_o  (s_axi_control_wready),
    .s_axil_wdata_i   (s_axi_control_wdata),
    .s_axil_wstrb_i   (s_axi_control_wstrb),
    .s_axil_bvalid_o  (s_axi_control_bvalid),
    .s_axil_bready_i  (s_axi_control_bready),
    .s_axil_bresp_o   (s_axi_control_bresp),
    .s_axil_arvalid_i (s_axi_control_arvalid),
    .s_axil_arready_o (s_axi_control_arready),
    .s_axil_araddr_i  (araddr),
    .s_axil_rvalid_o  (s_axi_control_rvalid),
    .s_axil_rready_i  (s_axi_control_rready),
    .s_axil_rdata_o   (s_axi_control_rdata),
    .s_axil_rresp_o   (s_axi_control_rresp),
    .interrupt_o      (interrupt),
    .m_axi_arvalid_o  (m_axi_gmem_arvalid),
    .m_axi_arready_i  (m_axi_gmem_arready),
    .m_axi_araddr_o   (m_axi_gmem_araddr),
    .m_axi_arlen_o    (m_axi_gmem_arlen),
    .m_axi_arsize_o   (m_axi_gmem_arsize),
    .m_axi_arburst_o  (m_axi_gmem_arburst),
    .m_axi_arid_o     (m_axi_gmem_arid),
    .m_axi_rvalid_i   (m_axi_gmem_rvalid),
    .m_axi_rready_o   (m_axi_gmem_rready),
    .m_axi_rdata_i    (m_axi_gmem_rdata),
    .m_axi_rlast_i    (m_axi_gmem_rlast),
    .m_axi_rresp_i    (m_axi_gmem_rresp),
    .m_axi_rid_i      (m_axi_gmem_rid),
    .m_axi_awvalid_o  (m_axi_gmem_awvalid),
    .m_axi_awready_i  (m_axi_gmem_awready),
    .m_axi_awaddr_o   (m_axi_gmem_awaddr),
    .m_axi_awlen_o    (m_axi_gmem_awlen),
    .m_axi_awsize_o   (m_axi_gmem_awsize),
    .m_axi_awburst_o  (m_axi_gmem_awburst),
    .m_axi_awid_o     (m_axi_gmem_awid),
    .m_axi_wvalid_o   (m_axi_gmem_wvalid),
    .m_axi_wready_i   (m_axi_gmem_wready),
    .m_axi_wdata_o    (m_axi_gmem_wdata),
    .m_axi_wstrb_o    (m_axi_gmem_wstrb),
    .m_axi_wlast_o    (m_axi_gmem_wlast),
    .m_axi_bvalid_i   (m_axi_gmem_bvalid),
    .m_axi_bready_o   (m_axi_gmem_bready),
    .m_axi_bresp_i    (m_axi_gmem_bresp),
    .m_axi_bid_i      (m_axi_gmem_bid)
  );
endmodule

// vta_sram - one on-chip buffer: one write port, one synchronous read port.
//
// Read data appears the cycle after the address (block RAM timing), or with OutReg two cycles
// after it, through the block RAM's output register (DOA_REG/DOB_REG: its clock-to-output
// delay is a fraction of the array's, which keeps the read off the critical path; it loads
// while oe_i is high, the REGCE pin, which the ALU's sequencer lowers to hold a micro-op in a
// stall); a read of the address being
// written in the same cycle returns the old contents, which the compute pipeline's forwarding
// register accounts for. The array has no reset, like block RAM; it starts zeroed under
// the Verilator model, and its contents persist across runs, as the functional simulator's buffers do.
//
// Block RAM comes in 18 Kb halves whose width at a given depth is fixed (BramCol: 36 bits up to
// 512 entries, 18 up to 1024, 9 up to 2048, 4, 2, 1 up to 16384; the same on 7-series and
// UltraScale). A buffer whose width is not a multiple of it spends a whole half on the last
// few bits. Those bits (LutW = Width mod BramCol) are kept in a second array in distributed
// RAM instead, when there are at most LutMaxBits of them (16 Kb: a few hundred LUTs for half a
// RAMB36), so the buffer takes floor(Width / BramCol) halves instead of one more (with OutReg
// only: the second array's read takes both cycles, below). The second array is read with the
// same enable into registers and goes through the same output register, so the timing seen at
// the ports is unchanged; docs/hw.md, "Block RAM of the default configuration".
module vta_sram #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  parameter bit          OutReg = 1'b0,
  parameter int unsigned LutMaxBits = 16384,
  parameter int unsigned LutPartDepth = 256
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic             oe_i,     // the output register's enable (OutReg only)
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  // The data width of one 18 Kb block RAM half at this depth (0: deeper than one half holds).
  localparam int unsigned BramCol = Depth <= 512 ? 36 : Depth <= 1024 ? 18 : Depth <= 2048 ? 9 :
                                    Depth <= 4096 ? 4 : Depth <= 8192 ? 2 : Depth <= 16384 ? 1 : 0;
  localparam int unsigned ColRem = BramCol == 0 ? 0 : Width % BramCol;
  localparam int unsigned LutW = (OutReg && Width > BramCol && ColRem != 0 &&
                                  ColRem * Depth <= LutMaxBits) ? ColRem : 0;
  localparam int unsigned AW = $clog2(Depth);
  localparam int unsigned BramW = Width - LutW;

  logic [BramW-1:0] mem_q [Depth];
  logic [Width-1:0] rdata;
  logic [BramW-1:0] rdata_b_q;

  if (OutReg) begin : g_out_reg
    logic [Width-1:0] rdata2_q;
    always_ff @(posedge clk_i) begin
      if (oe_i) rdata2_q <= rdata;
    end
    assign rdata_o = rdata2_q;
  end else begin : g_no_out_reg
    logic unused_oe;
    assign unused_oe = oe_i;
    assign rdata_o = rdata;
  end

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i[BramW-1:0];
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_b_q <= mem_q[raddr_i];
  end

  if (LutW != 0) begin : g_lut
    // The distributed RAM's write goes in a cycle late, from registers (its write enable pins
    // have a long setup, and the enables of the ACC banks came late); a read of the address
    // written in the cycle before takes the registered data instead (hit_q), so reads see
    // exactly what they would see with the write on time. With more than LutPartDepth entries
    // the array is read as parts of LutPartDepth, each into a register, and the part is picked
    // by the registered index's upper bits in the output register's cycle (a 4,096-entry array
    // read whole was three LUT levels behind the RAM cells, 3.18 ns, parts of 1,024 two, 3.17). Like the array, the
    // registers have no reset: a flip-flop powers up at zero on the FPGA, as in the simulation
    // model built by scripts/rtl-model.sh.
    localparam int unsigned Parts = Depth > LutPartDepth ? Depth / LutPartDepth : 1;
    localparam int unsigned PartDepth = Depth / Parts;
    localparam int unsigned PartAW = $clog2(PartDepth);
    localparam int unsigned HiW = Parts > 1 ? $clog2(Parts) : 1;
    logic [LutW-1:0] part_q [Parts];
    logic [LutW-1:0] wdata_q, byp_q;
    logic [AW-1:0]   waddr_q;
    logic            we_q, hit_q;
    logic [HiW-1:0]  hi_q, whi, rhi;
    if (Parts > 1) begin : g_hi
      assign whi = waddr_q[AW-1 -: HiW];
      assign rhi = raddr_i[AW-1 -: HiW];
    end else begin : g_no_hi
      assign whi = '0;
      assign rhi = '0;
    end
    always_ff @(posedge clk_i) begin
      we_q    <= we_i;
      waddr_q <= waddr_i;
      wdata_q <= wdata_i[Width-1:BramW];
    end
    for (genvar p = 0; p < Parts; p++) begin : g_part
      (* ram_style = "distributed" *) logic [LutW-1:0] lut_q [PartDepth];
      always_ff @(posedge clk_i) begin
        if (we_q && whi == HiW'(p)) lut_q[waddr_q[PartAW-1:0]] <= wdata_q;
      end
      always_ff @(posedge clk_i) begin
        if (re_i) part_q[p] <= lut_q[raddr_i[PartAW-1:0]];
      end
    end
    always_ff @(posedge clk_i) begin
      if (re_i) begin
        hi_q  <= rhi;
        hit_q <= we_q && waddr_q == raddr_i;
        byp_q <= wdata_q;
      end
    end
    assign rdata = {hit_q ? byp_q : part_q[hi_q], rdata_b_q};
  end else begin : g_bram_only
    assign rdata = rdata_b_q;
  end
endmodule

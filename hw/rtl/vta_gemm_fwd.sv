// vta_gemm_fwd - the GEMM unit's accumulator forwarding in the compute pipeline (docs/hw.md,
// "Compute pipeline"): the destination of the micro-op reaching C2, from ACC or from the unit's
// own results ahead of it.
//
// A micro-op reads ACC in C1 and writes it in C3; a read misses the writes of the three
// micro-ops ahead of it (the one in C2 when it is in R, the one in C3, and the one that wrote
// the cycle before). By the time it reaches C2 they are h1 (the unit's result register
// itself), h2 (the one before, kept here) and h3 (which in R was h2). The source is chosen in
// R, one cycle ahead, so that C2 only has a four-way multiplexer in front of the accumulate:
//   0, 1: the block RAM of bank 0 or 1; 2: h1; 3: old_q (h2 or h3, picked in R).
module vta_gemm_fwd
  import vta_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // R: the micro-op whose destination is chosen
  input  logic [LogAccDepth-1:0]       r_a_i,
  // the writing micro-ops in C2 and C3 (writing ACC now), while that one is in R
  input  logic                         c2_wr_i,
  input  logic [LogAccDepth-1:0]       c2_a_i,
  input  logic                         c3_wr_i,
  input  logic [LogAccDepth-1:0]       c3_a_i,
  // C2: ACC's copy a, bank b at [b*AccW +: AccW], and the unit's result register (h1)
  input  logic [2*AccLanes*AccWidth-1:0] a_rdata_i,
  input  logic [AccLanes*AccWidth-1:0] res_i,
  output logic [AccLanes*AccWidth-1:0] dst_o
);
  localparam int unsigned AccW = AccLanes * AccWidth;
  localparam int unsigned BankW = LogAccDepth - 1;  // the bank bit of an index

  logic                   h2_v_q;
  logic [LogAccDepth-1:0] h2_a_q;
  logic [AccW-1:0]        h2_d_q, old_q;
  logic [1:0]             sel_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) h2_v_q <= 1'b0;
    else h2_v_q <= c3_wr_i;
  end
  always_ff @(posedge clk_i) begin
    h2_a_q <= c3_a_i;
    h2_d_q <= res_i;
  end

  // In R: the micro-op now in C2 becomes h1, the one in C3 h2 and the one in h2 h3 by the time
  // this one reaches C2.
  always_ff @(posedge clk_i) begin
    if (c2_wr_i && c2_a_i == r_a_i) sel_q <= 2'd2;
    else if ((c3_wr_i && c3_a_i == r_a_i) || (h2_v_q && h2_a_q == r_a_i)) sel_q <= 2'd3;
    else sel_q <= {1'b0, r_a_i[BankW]};
    old_q <= (c3_wr_i && c3_a_i == r_a_i) ? res_i : h2_d_q;
  end

  always_comb begin
    unique case (sel_q)
      2'd0: dst_o = a_rdata_i[0+:AccW];
      2'd1: dst_o = a_rdata_i[AccW+:AccW];
      2'd2: dst_o = res_i;
      default: dst_o = old_q;
    endcase
  end
endmodule

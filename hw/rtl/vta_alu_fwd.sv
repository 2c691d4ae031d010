// vta_alu_fwd - the ALU's operand forwarding in the compute pipeline (docs/hw.md, "Compute
// pipeline"): the destination and vector operand of the micro-op reaching C2a, from ACC or
// from the ALU's own results ahead of it.
//
// The ALU reads ACC in C1 and writes it in C4, so a read misses the writes of the four
// micro-ops ahead of it. When it reaches C2a they are: the one in C2b, whose result (if not a
// product: the MUL stall keeps a reader of a product out of this distance) is vta_alu's pre_o;
// the one in C4, in vta_alu's res_o; and the two written in the two cycles before (h2, h3),
// one of which R picks into old_q. So each operand has a five-way multiplexer, its source
// chosen in R, one cycle ahead, and registered:
//   0, 1: the block RAM of bank 0 or 1; 2: pre_o; 3: res_o; 4: old_q.
// An immediate second operand takes old_q's place (select 4).
module vta_alu_fwd
  import vta_pkg::*;
(
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // R: the micro-op whose operands are chosen
  input  logic [LogAccDepth-1:0] r_dst_i,
  input  logic [LogAccDepth-1:0] r_src_i,
  input  logic                   r_use_imm_i,
  input  logic [AccWidth-1:0]    r_imm_i,   // the immediate, sign-extended to a lane
  // the writing micro-ops in C2a, C2b and C4 (writing ACC now)
  input  logic                   c2a_wr_i,
  input  logic [LogAccDepth-1:0] c2a_a_i,
  input  logic                   c2b_wr_i,
  input  logic [LogAccDepth-1:0] c2b_a_i,
  input  logic                   c4_wr_i,
  input  logic [LogAccDepth-1:0] c4_a_i,
  // C2a: ACC's copies a (destination) and b (vector operand), bank b at [b*AccW +: AccW], and
  // the ALU's results
  input  logic [2*AccLanes*AccWidth-1:0] a_rdata_i,
  input  logic [2*AccLanes*AccWidth-1:0] b_rdata_i,
  input  logic [AccLanes*AccWidth-1:0] pre_i,
  input  logic [AccLanes*AccWidth-1:0] res_i,
  output logic [AccLanes*AccWidth-1:0] dst_o,
  output logic [AccLanes*AccWidth-1:0] src_o
);
  localparam int unsigned AccW = AccLanes * AccWidth;
  localparam int unsigned BankW = LogAccDepth - 1;  // the bank bit of an index

  logic                   h2_v_q;
  logic [LogAccDepth-1:0] h2_a_q;
  logic [AccW-1:0]        h2_d_q, d_old_q, s_old_q;
  logic [2:0]             d_sel_q, s_sel_q;

  // h2: the write of the cycle before.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) h2_v_q <= 1'b0;
    else h2_v_q <= c4_wr_i;
  end
  always_ff @(posedge clk_i) begin
    h2_a_q <= c4_a_i;
    h2_d_q <= res_i;
  end

  // In R: the micro-op now in C2a will be in C2b (pre_o), the one in C2b in C4 (res_o); the
  // one in C4 and the one in h2 are picked into old_q now.
  function automatic logic [2:0] sel(logic [LogAccDepth-1:0] addr);
    if (c2a_wr_i && c2a_a_i == addr) sel = 3'd2;
    else if (c2b_wr_i && c2b_a_i == addr) sel = 3'd3;
    else if ((c4_wr_i && c4_a_i == addr) || (h2_v_q && h2_a_q == addr)) sel = 3'd4;
    else sel = {2'b0, addr[BankW]};
  endfunction

  always_ff @(posedge clk_i) begin
    d_sel_q <= sel(r_dst_i);
    d_old_q <= (c4_wr_i && c4_a_i == r_dst_i) ? res_i : h2_d_q;
    s_sel_q <= r_use_imm_i ? 3'd4 : sel(r_src_i);
    s_old_q <= r_use_imm_i ? {AccLanes{r_imm_i}} :
               ((c4_wr_i && c4_a_i == r_src_i) ? res_i : h2_d_q);
  end

  always_comb begin
    unique case (d_sel_q)
      3'd0: dst_o = a_rdata_i[0+:AccW];
      3'd1: dst_o = a_rdata_i[AccW+:AccW];
      3'd2: dst_o = pre_i;
      3'd3: dst_o = res_i;
      default: dst_o = d_old_q;
    endcase
    unique case (s_sel_q)
      3'd0: src_o = b_rdata_i[0+:AccW];
      3'd1: src_o = b_rdata_i[AccW+:AccW];
      3'd2: src_o = pre_i;
      3'd3: src_o = res_i;
      default: src_o = s_old_q;
    endcase
  end
endmodule

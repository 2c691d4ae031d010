// vta_alu_fwd - the ALU's operand stage O (docs/hw.md, "Compute pipeline"): the destination and
// vector operand of the micro-op in O, from ACC or from the ALU's own results ahead of it,
// multiplexed and registered, so that vta_alu's operations in C2a start at flip-flops.
//
// The ALU reads ACC in C1 (two cycles before the GEMM unit's C1), registers its operands in O
// and writes in C4, so a read misses the writes of the six micro-ops ahead of it. The nearest
// (in C2a when this one is in O) has no result yet: the ALU's sequencer keeps a micro-op that
// reads it out of that distance (a stall), a reader of a clip out of the next one too, and a
// reader of a product out of the next two. When this one is in O the others are: the one in
// C2b, whose result is vta_alu's pre_o; the one in C2c, in mid_o; the one in C4, in res_o; and
// the two written in the two cycles before (h2, h3), one of which R picks into old_q. So each
// operand has a six-way multiplexer, its source chosen in R, one cycle ahead, and registered:
//   0, 1: the block RAM of bank 0 or 1; 2: pre_o; 3: mid_o; 4: res_o; 5: old_q.
// An immediate second operand takes old_q's place (select 5).
module vta_alu_fwd
  import vta_pkg::*;
(
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // R: the micro-op whose operands are chosen (in O next cycle)
  input  logic [LogAccDepth-1:0] r_dst_i,
  input  logic [LogAccDepth-1:0] r_src_i,
  input  logic                   r_use_imm_i,
  input  logic [AccWidth-1:0]    r_imm_i,   // the immediate, sign-extended to a lane
  // For the assertions that the stall keeps readers away: R's micro-op writes (is valid), the
  // writing micro-op in O, and whether C2a's is a product or a clip
  input  logic                   r_wr_i,
  input  logic                   o_wr_i,
  input  logic [LogAccDepth-1:0] o_a_i,
  input  logic                   c2a_mul_i,
  input  logic                   c2a_clip_i,
  // the writing micro-ops in C2a, C2b, C2c and C4 (writing ACC now), while that one is in R
  input  logic                   c2a_wr_i,
  input  logic [LogAccDepth-1:0] c2a_a_i,
  input  logic                   c2b_wr_i,
  input  logic [LogAccDepth-1:0] c2b_a_i,
  input  logic                   c2c_wr_i,
  input  logic [LogAccDepth-1:0] c2c_a_i,
  input  logic                   c4_wr_i,
  input  logic [LogAccDepth-1:0] c4_a_i,
  // O: ACC's copies a (destination) and b (vector operand), bank b at [b*AccW +: AccW], and
  // the ALU's results; the operands registered (C2a)
  input  logic [2*AccLanes*AccWidth-1:0] a_rdata_i,
  input  logic [2*AccLanes*AccWidth-1:0] b_rdata_i,
  input  logic [AccLanes*AccWidth-1:0] pre_i,
  input  logic [AccLanes*AccWidth-1:0] mid_i,
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
  logic [AccW-1:0]        dst, src;

  // h2: the write of the cycle before.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) h2_v_q <= 1'b0;
    else h2_v_q <= c4_wr_i;
  end
  always_ff @(posedge clk_i) begin
    h2_a_q <= c4_a_i;
    h2_d_q <= res_i;
  end

  // In R: the micro-op now in C2a will be in C2b (pre_o) when this one is in O, the one in C2b
  // in C2c (mid_o), the one in C2c in C4 (res_o); the one in C4 and the one in h2 are picked
  // into old_q now. (The one now in O is never read: the stall.)
  function automatic logic [2:0] sel(logic [LogAccDepth-1:0] addr);
    if (c2a_wr_i && c2a_a_i == addr) sel = 3'd2;
    else if (c2b_wr_i && c2b_a_i == addr) sel = 3'd3;
    else if (c2c_wr_i && c2c_a_i == addr) sel = 3'd4;
    else if ((c4_wr_i && c4_a_i == addr) || (h2_v_q && h2_a_q == addr)) sel = 3'd5;
    else sel = {2'b0, addr[BankW]};
  endfunction

  always_ff @(posedge clk_i) begin
    d_sel_q <= sel(r_dst_i);
    d_old_q <= (c4_wr_i && c4_a_i == r_dst_i) ? res_i : h2_d_q;
    s_sel_q <= r_use_imm_i ? 3'd5 : sel(r_src_i);
    s_old_q <= r_use_imm_i ? {AccLanes{r_imm_i}} :
               ((c4_wr_i && c4_a_i == r_src_i) ? res_i : h2_d_q);
  end

  always_comb begin
    unique case (d_sel_q)
      3'd0: dst = a_rdata_i[0+:AccW];
      3'd1: dst = a_rdata_i[AccW+:AccW];
      3'd2: dst = pre_i;
      3'd3: dst = mid_i;
      3'd4: dst = res_i;
      default: dst = d_old_q;
    endcase
    unique case (s_sel_q)
      3'd0: src = b_rdata_i[0+:AccW];
      3'd1: src = b_rdata_i[AccW+:AccW];
      3'd2: src = pre_i;
      3'd3: src = mid_i;
      3'd4: src = res_i;
      default: src = s_old_q;
    endcase
  end
  always_ff @(posedge clk_i) begin
    dst_o <= dst;
    src_o <= src;
  end

`ifndef SYNTHESIS
  // The stall keeps a reader out of the cycle after its writer, a reader of a clip out of the
  // two cycles after it and one of a product out of the three (in R: the writer in O, in C2a,
  // or in C2b), where nothing here holds their results.
  logic c2b_mul_q;
  always_ff @(posedge clk_i) c2b_mul_q <= c2a_mul_i;
  function automatic logic r_reads(logic [LogAccDepth-1:0] a);
    r_reads = r_wr_i && (a == r_dst_i || (!r_use_imm_i && a == r_src_i));
  endfunction
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(o_wr_i && r_reads(o_a_i)))
      else $error("vta_alu_fwd: ALU micro-op reads ACC entry %0d of the one just ahead of it",
                  o_a_i);
      assert (!(c2a_wr_i && (c2a_mul_i || c2a_clip_i) && r_reads(c2a_a_i)))
      else $error("vta_alu_fwd: ALU micro-op reads ACC entry %0d of the MUL or SHRCLIP two ahead",
                  c2a_a_i);
      assert (!(c2b_wr_i && c2b_mul_q && r_reads(c2b_a_i)))
      else $error("vta_alu_fwd: ALU micro-op reads ACC entry %0d of the MUL three ahead of it",
                  c2b_a_i);
    end
  end
`endif
endmodule

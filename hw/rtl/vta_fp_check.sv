// vta_fp_check - simulation only: every micro-op a compute unit writes (and the ALU reads)
// stays inside the footprint its instruction was admitted with. Checked in X, against the
// footprint of the instruction that issued the micro-op three cycles earlier; the ALU's copies
// stand still while its front stalls, with the micro-ops they belong to. Instantiated by
// vta_compute outside synthesis (yosys defines SYNTHESIS, so it never sees this module).
`ifndef SYNTHESIS
module vta_fp_check
  import vta_pkg::*;
(
  input logic                   clk_i,
  input logic                   rst_ni,
  // the units' admitted footprints (index 0 GEMM, 1 ALU) and their issue
  input logic                   adv_i [2],
  input logic                   a_stall_i,
  input logic                   run_ok_i [2],
  input logic                   run_nop_i [2],
  input logic                   run_src_i,  // the ALU reads a vector operand
  input logic [LogAccDepth-1:0] run_dlo_i [2],
  input logic [LogAccDepth-1:0] run_dhi_i [2],
  input logic [LogAccDepth-1:0] run_slo_i [2],
  input logic [LogAccDepth-1:0] run_shi_i [2],
  // the micro-ops in X (their ACC indices)
  input logic                   g_valid_i,
  input logic                   g_write_i,
  input logic [LogAccDepth-1:0] g_dst_i,
  input logic                   a_valid_i,
  input logic                   a_write_i,
  input logic [LogAccDepth-1:0] a_dst_i,
  input logic [LogAccDepth-1:0] a_src_i
);
  logic                   ok_q [3][2];
  logic [LogAccDepth-1:0] dlo_q [3][2];
  logic [LogAccDepth-1:0] dhi_q [3][2];
  logic [LogAccDepth-1:0] slo_q [3][2];
  logic [LogAccDepth-1:0] shi_q [3][2];
  logic                   src_q [3];
  logic                   gx_rd, ax_rd;
  assign gx_rd = g_valid_i && g_write_i;
  assign ax_rd = a_valid_i && a_write_i;
  always_ff @(posedge clk_i) begin
    for (int p = 0; p < 2; p++) begin
      if (p == 0 || !a_stall_i) begin
        ok_q[0][p]  <= adv_i[p] && run_ok_i[p] && !run_nop_i[p];
        dlo_q[0][p] <= run_dlo_i[p];
        dhi_q[0][p] <= run_dhi_i[p];
        slo_q[0][p] <= run_slo_i[p];
        shi_q[0][p] <= run_shi_i[p];
        for (int d = 1; d < 3; d++) begin
          ok_q[d][p]  <= ok_q[d-1][p];
          dlo_q[d][p] <= dlo_q[d-1][p];
          dhi_q[d][p] <= dhi_q[d-1][p];
          slo_q[d][p] <= slo_q[d-1][p];
          shi_q[d][p] <= shi_q[d-1][p];
        end
      end
    end
    if (!a_stall_i) begin
      src_q[0] <= run_src_i;
      src_q[1] <= src_q[0];
      src_q[2] <= src_q[1];
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(gx_rd && ok_q[2][0] && (g_dst_i < dlo_q[2][0] || g_dst_i > dhi_q[2][0])))
      else $error("vta_compute: GEMM destination %0d outside its footprint [%0d, %0d]", g_dst_i,
                  dlo_q[2][0], dhi_q[2][0]);
      assert (!(ax_rd && ok_q[2][1] && (a_dst_i < dlo_q[2][1] || a_dst_i > dhi_q[2][1])))
      else $error("vta_compute: ALU destination %0d outside its footprint [%0d, %0d]", a_dst_i,
                  dlo_q[2][1], dhi_q[2][1]);
      assert (!(ax_rd && ok_q[2][1] && src_q[2] &&
                (a_src_i < slo_q[2][1] || a_src_i > shi_q[2][1])))
      else $error("vta_compute: ALU operand %0d outside its footprint [%0d, %0d]", a_src_i,
                  slo_q[2][1], shi_q[2][1]);
    end
  end
endmodule
`endif

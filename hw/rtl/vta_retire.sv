// vta_retire - the compute module's retirement in program order.
//
// Every instruction that starts in the compute module (a GEMM or ALU instruction, a compute
// no-op, a LOAD UOP or ACC) enters a queue as it starts, with its kind and its two push flags,
// and leaves it, firing its pushes (retire_o, head_pp_o, head_pn_o), once it has completed.
// Kinds: 0 the GEMM unit, 1 the ALU, 2 a no-op (complete when it starts), 3 a LOAD UOP or ACC.
// The queue is a vta_fifo: its head is a register (the retire decision read it through a
// distributed RAM's read multiplexers), and its empty and full tests are registers beside its
// count. The completions (g_done_i, a_done_i, l_done_i: the unit's instruction wrote its last
// micro-op, the load finished) are counted by up/down counters, so an instruction may complete
// before older ones retire; the late completions and the retire only pick the counters' next
// values.
module vta_retire #(
  parameter int unsigned Depth = 8
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     push_i,
  input  logic [1:0]               push_kind_i,
  input  logic                     push_pp_i,    // the instruction's push_prev
  input  logic                     push_pn_i,    // and push_next
  output logic                     zero_o,       // the queue is empty
  output logic                     full_o,       // it holds Depth instructions
  input  logic                     g_done_i,
  input  logic                     a_done_i,
  input  logic                     l_done_i,
  output logic                     retire_o,
  output logic                     head_pp_o,
  output logic                     head_pn_o,
  output logic [$clog2(Depth):0]   g_done_o,     // the counts (the parent's assertions)
  output logic [$clog2(Depth):0]   a_done_o
);
  localparam int unsigned W = $clog2(Depth) + 1;
  logic       g_done_zero, a_done_zero, l_done_zero, valid, ready, in_ready;
  logic [1:0] head_kind;

  assign ready    = (head_kind == 2'd2) ||
                    (head_kind == 2'd0 && (!g_done_zero || g_done_i)) ||
                    (head_kind == 2'd1 && (!a_done_zero || a_done_i)) ||
                    (head_kind == 2'd3 && (!l_done_zero || l_done_i));
  assign retire_o = valid && ready;
  assign zero_o   = !valid;
  assign full_o   = !in_ready;
  vta_fifo #(.Width(4), .Depth(Depth)) u_rq (
    .clk_i,
    .rst_ni,
    .in_valid_i (push_i),
    .in_ready_o (in_ready),
    .in_data_i  ({push_kind_i, push_pp_i, push_pn_i}),
    .out_valid_o(valid),
    .out_ready_i(ready),
    .out_data_o ({head_kind, head_pp_o, head_pn_o}),
    .count_o    (),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );

  // LOAD UOPs complete in order (one at a time), possibly before older instructions.
  vta_updown #(.Width(W)) u_l_done (
    .clk_i, .rst_ni, .clear_i(1'b0), .inc_i(l_done_i), .dec_i(retire_o && head_kind == 2'd3),
    .count_o(), .zero_o(l_done_zero), .one_o(), .two_o(), .top_o()
  );
  vta_updown #(.Width(W)) u_g_done (
    .clk_i, .rst_ni, .clear_i(1'b0), .inc_i(g_done_i), .dec_i(retire_o && head_kind == 2'd0),
    .count_o(g_done_o), .zero_o(g_done_zero), .one_o(), .two_o(), .top_o()
  );
  vta_updown #(.Width(W)) u_a_done (
    .clk_i, .rst_ni, .clear_i(1'b0), .inc_i(a_done_i), .dec_i(retire_o && head_kind == 2'd1),
    .count_o(a_done_o), .zero_o(a_done_zero), .one_o(), .two_o(), .top_o()
  );
endmodule

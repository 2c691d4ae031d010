// vta_sem - a dependency-token queue as a counting semaphore.
//
// The published design keeps 1024-deep FIFOs of single-bit tokens; since a token carries no
// data, a counter is equivalent and costs a few flip-flops. A push and a pop in the same cycle
// leave the count unchanged. The producer and consumer are in different modules, so a push
// becomes visible to the consumer on the next cycle, after the producer's buffer writes have
// landed.
module vta_sem #(
  parameter int unsigned CountW = 16
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,  // start of a run: no tokens carry over
  input  logic              push_i,
  input  logic              pop_i,    // only when avail_o
  output logic              avail_o,
  output logic [CountW-1:0] count_o
);
  // The count: the late push and pop (the modules' dispatch decisions) only pick its next value.
  logic [CountW-1:0] count_q;
  logic              zero;

  assign avail_o = !zero;
  assign count_o = count_q;

  vta_updown #(.Width(CountW), .LatePick(1'b1)) u_count (
    .clk_i,
    .rst_ni,
    .clear_i,
    .inc_i  (push_i),
    .dec_i  (pop_i),
    .count_o(count_q),
    .zero_o (zero),
    .one_o  (),
    .two_o  (),
    .top_o  ()
  );

`ifndef SYNTHESIS
  // A pop needs a token (a push in the same cycle does not count: it is not visible yet).
  always_ff @(posedge clk_i) begin
    if (rst_ni && pop_i) assert (count_q != '0) else $error("vta_sem: pop of an empty queue");
    if (rst_ni && push_i && !pop_i) assert (count_q != '1) else $error("vta_sem: overflow");
  end
`endif
endmodule

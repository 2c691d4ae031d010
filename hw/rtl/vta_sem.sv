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
  // The count plus and minus one are registers too, so the late push and pop (the modules'
  // dispatch decisions) only pick a value instead of entering an adder.
  logic [CountW-1:0] count_d, count_q, cp1_d, cp1_q, cm1_d, cm1_q;

  assign avail_o = (count_q != '0);
  assign count_o = count_q;

  always_comb begin
    count_d = count_q;
    cp1_d   = cp1_q;
    cm1_d   = cm1_q;
    if (clear_i) begin
      count_d = '0;
      cp1_d   = CountW'(1);
      cm1_d   = '1;
    end else if (push_i && !pop_i) begin
      count_d = cp1_q;
      cp1_d   = cp1_q + 1'b1;
      cm1_d   = count_q;
    end else if (pop_i && !push_i) begin
      count_d = cm1_q;
      cp1_d   = count_q;
      cm1_d   = cm1_q - 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      count_q <= '0;
      cp1_q   <= CountW'(1);
      cm1_q   <= '1;
    end else begin
      count_q <= count_d;
      cp1_q   <= cp1_d;
      cm1_q   <= cm1_d;
    end
  end

`ifndef SYNTHESIS
  // A pop needs a token (a push in the same cycle does not count: it is not visible yet).
  always_ff @(posedge clk_i) begin
    if (rst_ni && pop_i) assert (count_q != '0) else $error("vta_sem: pop of an empty queue");
    if (rst_ni && push_i && !pop_i) assert (count_q != '1) else $error("vta_sem: overflow");
    if (rst_ni) assert (cp1_q == count_q + 1'b1 && cm1_q == count_q - 1'b1)
      else $error("vta_sem: count copies disagree with %0d", count_q);
  end
`endif
endmodule

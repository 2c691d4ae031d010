// vta_delay - a fixed delay of Stages cycles (a chain of registers, Stages >= 1) with a valid
// bit that resets to zero; any_o says that a valid entry is in the chain (a register: an OR of
// every stage's valid bit sat in front of the compute's dispatch), any_next_o what it will say
// in the next cycle. The compute module
// uses it to carry a micro-op's control (buffer indices, flags, ALU tag) alongside the GEMM
// datapath, so both units read and write ACC at the same depth.
module vta_delay #(
  parameter int unsigned Width  = 1,
  parameter int unsigned Stages = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o,
  output logic             any_o,
  output logic             any_next_o
);
  logic [Stages-1:0] valid_q;
  logic              any_q;
  logic [Width-1:0]  last_q, last_in;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      valid_q <= '0;
      any_q   <= 1'b0;
    end else begin
      valid_q[0] <= valid_i;
      for (int s = 1; s < Stages; s++) valid_q[s] <= valid_q[s-1];
      any_q <= any_next_o;
    end
  end
  // The valid bits after the shift: the input and every stage but the last.
  if (Stages > 1) begin : g_any_chain
    assign any_next_o = valid_i || (valid_q[Stages-2:0] != '0);
  end else begin : g_any_one
    assign any_next_o = valid_i;
  end
  // The last stage is reset (as the valid bits are), so that synthesis keeps it in flip-flops:
  // as the end of a shift register (an SRL16E) its clock-to-output delay, 1.57 ns of cell
  // delay against 0.3 ns, opened the paths of its readers (the ACC copies' read addresses).
  if (Stages > 1) begin : g_chain
    logic [Width-1:0] data_q [Stages-1];
    always_ff @(posedge clk_i) begin
      data_q[0] <= data_i;
      for (int s = 1; s < Stages - 1; s++) data_q[s] <= data_q[s-1];
    end
    assign last_in = data_q[Stages-2];
  end else begin : g_one
    assign last_in = data_i;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) last_q <= '0;
    else last_q <= last_in;
  end
  assign valid_o = valid_q[Stages-1];
  assign data_o  = last_q;
  assign any_o   = any_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (any_q == (valid_q != '0)) else $error("vta_delay: any_o disagrees");
  end
`endif
endmodule

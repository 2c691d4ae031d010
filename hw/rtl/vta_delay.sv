// vta_delay - a fixed delay of Stages cycles (a chain of registers, Stages >= 1) with a valid
// bit that resets to zero; any_o says that a valid entry is in the chain. The compute module
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
  output logic             any_o
);
  logic [Stages-1:0] valid_q;
  logic [Width-1:0]  last_q, last_in;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) valid_q <= '0;
    else begin
      valid_q[0] <= valid_i;
      for (int s = 1; s < Stages; s++) valid_q[s] <= valid_q[s-1];
    end
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
  assign any_o   = valid_q != '0;
endmodule

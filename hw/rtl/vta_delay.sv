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
  logic [Width-1:0]  data_q [Stages];

  always_ff @(posedge clk_i) begin
    if (!rst_ni) valid_q <= '0;
    else begin
      valid_q[0] <= valid_i;
      for (int s = 1; s < Stages; s++) valid_q[s] <= valid_q[s-1];
    end
  end
  always_ff @(posedge clk_i) begin
    data_q[0] <= data_i;
    for (int s = 1; s < Stages; s++) data_q[s] <= data_q[s-1];
  end
  assign valid_o = valid_q[Stages-1];
  assign data_o  = data_q[Stages-1];
  assign any_o   = valid_q != '0;
endmodule

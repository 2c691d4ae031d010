// vta_fifo - synchronous first-word-fall-through FIFO with valid/ready on both sides.
//
// Used for the command queues (fetch -> load/compute/store), the fetch instruction buffer and the
// burst-length queue of the store's write channel. Storage is a plain array, which maps to
// distributed RAM on an FPGA and to an indexed C++ array under Verilator (cheap at any depth).
// The head is a register (head_q): the array is read at the next read pointer when an element
// leaves, and an element pushed into an empty queue (or one emptied in that cycle) goes straight
// into it, so out_data_o comes from a flip-flop, not through the array's read multiplexers (on
// a 512-deep queue several LUT and MUXF levels that sat in front of the consumer's logic),
// with the same cycle-by-cycle behaviour as a queue read at the read pointer.
module vta_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              in_valid_i,
  output logic              in_ready_o,
  input  logic [Width-1:0]  in_data_i,
  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [Width-1:0]  out_data_o,
  output logic [$clog2(Depth+1)-1:0] count_o
);
  localparam int unsigned CountW = $clog2(Depth + 1);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] head_q;
  logic [PtrW-1:0] rptr_nx;
  logic [PtrW-1:0] wptr_d, wptr_q, rptr_d, rptr_q;
  logic [CountW-1:0] count_q;
  logic push, pop;

  assign in_ready_o  = (count_q != CountW'(Depth));
  assign out_valid_o = (count_q != '0);
  assign out_data_o  = head_q;
  assign rptr_nx     = (rptr_q == LastPtr) ? '0 : rptr_q + 1'b1;
  assign count_o     = count_q;
  assign push        = in_valid_i & in_ready_o;
  assign pop         = out_valid_o & out_ready_i;

  // The count: a late push or pop (a consumer's dispatch decision) only picks its next value.
  vta_updown #(.Width(CountW)) u_count (
    .clk_i,
    .rst_ni,
    .clear_i(1'b0),
    .inc_i  (push),
    .dec_i  (pop),
    .count_o(count_q)
  );

  always_comb begin
    wptr_d = wptr_q;
    rptr_d = rptr_q;
    if (push) wptr_d = (wptr_q == LastPtr) ? '0 : wptr_q + 1'b1;
    if (pop) rptr_d = rptr_nx;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
    end else begin
      wptr_q  <= wptr_d;
      rptr_q  <= rptr_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wptr_q] <= in_data_i;
  end
  // The element at the head after this cycle: the next one in the array when this one leaves
  // and another is stored, or the one arriving when it is the only one.
  always_ff @(posedge clk_i) begin
    if (pop && count_q != '0 && count_q != CountW'(1)) head_q <= mem_q[rptr_nx];
    else if (push && (count_q == '0 || (pop && count_q == CountW'(1)))) head_q <= in_data_i;
  end
endmodule

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
// The value the head register takes and when it takes it are outputs too (head_next_o,
// head_load_o), so a consumer can keep registers of its own beside the head, worked out from
// the element a cycle before it is at the head (vta_load: the DMA's byte addresses), and have
// them at the head's time with no logic between them and its decisions. With Prefetch, the
// element behind the head is a register too (second_q, filled from the array at the read
// pointer + 2), so head_next_o comes from a register or the input, not through the array's
// read multiplexers, and the consumer's logic on it has most of a cycle.
module vta_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,
  parameter bit          Prefetch = 1'b0,
  // The head register's next value through a kept vta_pick4 by the pop and the fill, written
  // every cycle: for a queue whose pop is late (vta_load_2d's transfers, popped behind the
  // gearbox's element handshake), which synthesis otherwise put on the head's reset and
  // enable pins (3.10-3.50 ns).
  parameter bit          LatePop = 1'b0
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              in_valid_i,
  output logic              in_ready_o,
  input  logic [Width-1:0]  in_data_i,
  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [Width-1:0]  out_data_o,
  output logic [$clog2(Depth+1)-1:0] count_o,
  // head_q takes head_next_o at the end of a cycle with head_load_o set
  output logic              head_load_o,
  output logic [Width-1:0]  head_next_o,
  // head_load_o without a pop (an element pushed into an empty queue): from the count's flags
  // and the push alone, so a consumer that treats a pop apart can read it early
  output logic              head_fill_o
);
  localparam int unsigned CountW = $clog2(Depth + 1);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);

  // Distributed RAM, as yosys maps every queue's array anyway: with Prefetch the array is read
  // at a register, and yosys would take that for a block RAM's registered address (2.55 ns
  // clock-to-output, and block RAM the default configuration has none of to spare).
  (* ram_style = "distributed" *) logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] head_q;
  logic [PtrW-1:0] rptr_nx;
  logic [PtrW-1:0] wptr_d, wptr_q, rptr_d, rptr_q;
  logic [CountW-1:0] count_q;
  logic push, pop, more;
  logic [Width-1:0] head_d;

  assign in_ready_o  = !c_full;
  assign out_valid_o = !c_zero;
  assign out_data_o  = head_q;
  // The read pointer's successor is kept in a register of its own (rptr_nx_q), so the array is
  // read at a register: with the increment and wrap in front of its address, the read's
  // multiplexers began a cycle's worth of logic late.
  logic [PtrW-1:0] rptr_nx_q;
  assign rptr_nx     = rptr_nx_q;
  assign count_o     = count_q;
  assign push        = in_valid_i & in_ready_o;
  assign pop         = out_valid_o & out_ready_i;

  // The count: a late push or pop (a consumer's dispatch decision) only picks its next value.
  // Its tests (empty, one or two stored, full) are registers beside it.
  logic c_zero, c_one, c_two, c_full;
  // (With LatePop the count's next value is a kept pick by the pop too: 3.04 ns on block4's
  // transfer queue, its enable behind the load gearbox's handshake.)
  vta_updown #(.Width(CountW), .Top(Depth), .LatePick(LatePop)) u_count (
    .clk_i,
    .rst_ni,
    .clear_i(1'b0),
    .inc_i  (push),
    .dec_i  (pop),
    .count_o(count_q),
    .zero_o (c_zero),
    .one_o  (c_one),
    .two_o  (c_two),
    .top_o  (c_full)
  );

  always_comb begin
    wptr_d = wptr_q;
    rptr_d = rptr_q;
    if (push) wptr_d = (wptr_q == LastPtr) ? '0 : wptr_q + 1'b1;
    if (pop) rptr_d = rptr_nx;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wptr_q    <= '0;
      rptr_q    <= '0;
      rptr_nx_q <= PtrW'(1 % Depth);
    end else begin
      wptr_q  <= wptr_d;
      rptr_q  <= rptr_d;
      if (pop) rptr_nx_q <= (rptr_nx_q == LastPtr) ? '0 : rptr_nx_q + 1'b1;
    end
  end

  // The array is written at the write pointer every cycle, pushed or not: that slot is free,
  // or (the queue full) the head's, which is read from head_q, never from the array again. So
  // the late push (a consumer's dispatch decision behind in_valid_i) is not the distributed
  // RAM's write enable (3.13-3.25 ns into the compute DMA queue's WE); only the pointer moves.
  always_ff @(posedge clk_i) begin
    mem_q[wptr_q] <= in_data_i;
  end
  // The element at the head after this cycle: the next one in the array when this one leaves
  // and another is stored, or the one arriving when it is the only one. Which of the two is
  // chosen by the count alone (more than one stored), so head_d does not wait for the pop.
  assign more        = !c_zero && !c_one;
  assign head_load_o = (pop && more) || (push && (c_zero || (pop && c_one)));
  assign head_next_o = head_d;
  assign head_fill_o = push && c_zero;
  if (LatePop) begin : g_late_pop
    logic [Width-1:0] head_nx;
    vta_pick4 #(.W(Width)) u_head_pick (
      .s1_i(pop), .s0_i(head_fill_o), .a_i(head_d), .b_i(head_d), .c_i(in_data_i), .d_i(head_q),
      .o_o(head_nx)
    );
    always_ff @(posedge clk_i) head_q <= head_nx;
  end else begin : g_head_en
    always_ff @(posedge clk_i) begin
      if (head_load_o) head_q <= head_d;
    end
  end

  if (Prefetch) begin : g_prefetch
    // The element behind the head (valid while two or more are stored): after a pop the one
    // two behind the old head, else the one arriving when it becomes the second. The array is
    // read at a register (rptr2_q, the read pointer + 2): with the sum and wrap in front of its
    // address, yosys built the read as several times the multiplexers.
    logic [Width-1:0] second_q, second_d;
    logic [PtrW-1:0]  rptr2_q;
    logic             more2;
    assign more2    = more && !c_two;
    assign second_d = more2 ? mem_q[rptr2_q] : in_data_i;
    assign head_d   = more ? second_q : in_data_i;
    always_ff @(posedge clk_i) begin
      if (!rst_ni) rptr2_q <= PtrW'(2 % Depth);
      else if (pop) rptr2_q <= (rptr2_q == LastPtr) ? '0 : rptr2_q + 1'b1;
    end
    always_ff @(posedge clk_i) begin
      if ((pop && more2) || (push && (pop ? c_two : c_one)))
        second_q <= second_d;
    end
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (rst_ni && more) begin
        assert (second_q == mem_q[rptr_nx] &&
                rptr2_q == ((rptr_nx == LastPtr) ? '0 : rptr_nx + 1'b1))
        else $error("vta_fifo: the register behind the head disagrees with the array");
      end
    end
`endif
  end else begin : g_no_prefetch
    logic unused_two;
    assign unused_two = c_two;
    assign head_d = more ? mem_q[rptr_nx] : in_data_i;
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (rptr_nx_q == ((rptr_q == LastPtr) ? '0 : rptr_q + 1'b1))
      else $error("vta_fifo: the read pointer's successor register disagrees");
    end
  end
`endif
endmodule

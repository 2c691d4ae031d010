// vta_fetch - reads the instruction stream from DRAM and routes each instruction to the load,
// compute or store command queue (ISA.md section 4).
//
// Reads are issued in bursts ahead of use, but only as far as the instruction buffer has room
// for everything in flight: the read data channel is shared with the load and compute modules,
// and a client that could not take its data would block theirs. So fetch never stalls the data
// channel; a full command queue only stops the router, and the buffer absorbs what arrives.
module vta_fetch
  import vta_pkg::*;
(
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    start_i,
  input  logic [AxiAddrWidth-1:0] insn_addr_i,
  input  logic [31:0]             insn_count_i,
  output logic                    done_o,      // every instruction of the run has been routed
  // AXI read client
  output logic                    ar_valid_o,
  input  logic                    ar_ready_i,
  output logic [AxiAddrWidth-1:0] ar_addr_o,
  output logic [7:0]              ar_len_o,
  input  logic                    r_valid_i,
  output logic                    r_ready_o,
  input  logic [BusWidth-1:0]     r_data_i,
  // command queues
  output logic                    load_valid_o,
  input  logic                    load_ready_i,
  output logic                    compute_valid_o,
  input  logic                    compute_ready_i,
  output logic                    store_valid_o,
  input  logic                    store_ready_i,
  output logic [InsnBytes*8-1:0]  insn_o
);
  localparam int unsigned A = AxiAddrWidth;
  localparam int unsigned BufDepth = 64;
  // Instructions one beat can carry (at least one: a narrow bus needs several beats per insn).
  localparam int unsigned PerBeat = (BusBytes > InsnBytes) ? BusBytes / InsnBytes : 1;
  localparam int unsigned MaxBeats = (32 / PerBeat > 0) ? 32 / PerBeat : 1;
  localparam int unsigned LogInsnBytes = $clog2(InsnBytes);

  logic bg_ax_valid, credit_ok, gb_in_ready, gb_valid, buf_in_ready, buf_valid, route;
  logic [LogBusBytes-1:0] lo, hi;
  logic [InsnBytes*8-1:0] gb_insn;
  logic [$clog2(BufDepth+1)-1:0] buf_count;
  // Beats in flight never exceed the buffer (the credit check below), so their count and the
  // credit arithmetic are narrow: a few bits, not a 32-bit chain behind the burst length.
  localparam int unsigned CredW = $clog2(BufDepth + 1) + $clog2(PerBeat) + 3;
  // The room left for further beats, in instructions: BufDepth - buf_count - (beats in flight
  // + 2) * PerBeat, kept as one register updated by what each cycle sends, receives, buffers
  // and routes.
  localparam int unsigned LogPer = $clog2(PerBeat);
  localparam int unsigned StepW = $clog2(PerBeat + 2) + 1;
  // A copy less one beat (roomb_q == room_q - PerBeat) takes a burst's cost without the +1 on
  // its length: room_q - (len_m1 + 1) * PerBeat = roomb_q - len_m1 * PerBeat, a shift (the
  // three chains of sums behind the length register were 3.8 ns on the default).
  // The credit is a register (credit_q), the burst's check made a cycle ahead: the burst
  // generator (SameReg) never sends a burst in the cycle after its burst register changes, so
  // the burst that may go now was already there in the cycle before, and until a burst goes
  // the room falls by at most the one instruction the gearbox pushes. So the credit for this
  // cycle is the burst's AxLEN (shifted: the room counts a burst's first beat already) plus
  // the push of the cycle before against the room of the cycle before, a comparison of
  // registers. (The check made in the burst's own cycle sat in front of the read arbiter's
  // grant and the burst generator's next burst behind it, 3.46 ns on block8; asking instead
  // for room for the longest burst kept a program's short last burst waiting about 50
  // cycles.)
  logic signed [CredW:0] room_d, room_q, room_len, room_q0, room_q1, room_r0, room_r1;
  logic signed [CredW:0] roomb_d, roomb_q, roomb_q0, roomb_q1, roomb_r0, roomb_r1;
  logic signed [StepW-1:0] room_step;  // one cycle's change but for a burst sent and the route
  logic r_fire_q;  // a beat was received in the cycle before
  // An instruction enters the buffer: whenever the gearbox has one, since the credit leaves
  // the buffer room for everything received (asserted below), so the buffer's full flag is
  // not in front of the room's sums (3.13 ns on the default and block8).
  logic push_b;
  assign push_b = gb_valid;
  logic signed [StepW-1:0] room_stepb, room_step1, room_stepb1;
  // x + y + z + 1 as a carry-save sum: the three in one LUT level, then one carry chain (x +
  // ~c + z + 1 = x - c + z).
  function automatic logic signed [CredW:0] add3(logic signed [CredW:0] x,
                                                 logic signed [CredW:0] y,
                                                 logic signed [CredW:0] z);
    logic [CredW:0] sum, cy;
    sum  = x ^ y ^ z;
    cy   = {(x[CredW-1:0] & y[CredW-1:0]) | (x[CredW-1:0] & z[CredW-1:0]) |
            (y[CredW-1:0] & z[CredW-1:0]), 1'b1};
    add3 = $signed(sum + cy);
  endfunction
  assign room_len = $signed({1'b0, CredW'(ar_len_o) << LogPer});
  logic [31:0] remaining_d, remaining_q;
  logic has_work;

  assign has_work = start_i && (insn_count_i != '0);

  // The program's beats to its first 4 KiB boundary, registered every cycle from the address
  // register (written by an earlier register write than start, so it has settled by then).
  localparam int unsigned PageW = $clog2((4096 >> LogBusBytes) + 1);
  logic [PageW-1:0] page_q;
  logic [1:0]       part_q;
  vta_burst_start #(.LogBusBytes(LogBusBytes)) u_start (
    .clk_i, .en_i(1'b1), .addr_lo_i(insn_addr_i[11:0]),
    .bytes_lo_i(LogBusBytes'(insn_count_i << LogInsnBytes)), .page_o(page_q), .part_o(part_q)
  );

  vta_burst_gen #(
    .AddrW      (A),
    .RowsW      (1),
    .LogBusBytes(LogBusBytes),
    .MaxBeats   (MaxBeats),
    .RowBytesW  (32 + LogInsnBytes),
    .PageIn     (1'b1),
    // The run's first burst from registers, a cycle later (the comparison with the beats to
    // the 4 KiB boundary in front of the burst register was 3.17 ns on the default).
    .CmdReg     (1'b1),
    .SameReg    (1'b1)  // a burst at most every other cycle (fetch's are up to 32 beats)
  ) u_bursts (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (has_work),
    .cmd_ready_o    (),
    .cmd_base_i     (insn_addr_i),
    .cmd_page_i     (page_q),
    .cmd_part_i     (part_q),
    .cmd_stride_i   ('0),
    .cmd_row_bytes_i(A'(insn_count_i) << LogInsnBytes),
    .cmd_rows_i     (1'b1),
    .ax_valid_o     (bg_ax_valid),
    .ax_ready_i     (ar_ready_i && credit_ok),
    .ax_addr_o      (ar_addr_o),
    .ax_len_o       (ar_len_o),
    .busy_o         ()
  );

  vta_row_beats #(
    .AddrW      (A),
    .RowsW      (1),
    .LogBusBytes(LogBusBytes),
    .RowBytesW  (32 + LogInsnBytes),
    .PartIn     (1'b1)
  ) u_beats (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (has_work),
    .cmd_ready_o    (),
    .cmd_base_lo_i  (insn_addr_i[LogBusBytes-1:0]),
    .cmd_stride_lo_i('0),
    .cmd_row_bytes_i(A'(insn_count_i) << LogInsnBytes),
    .cmd_rows_i     (1'b1),
    .cmd_part_i     (part_q),
    .cmd_one_i      (1'b0),  // (worked out by the walker: no OneIn)
    .valid_o        (),
    .step_i         (r_valid_i && r_ready_o),
    .lo_o           (lo),
    .hi_o           (hi),
    .last_o         ()
  );

  // Room for the burst, for everything already in flight and for what the gearbox holds,
  // checked a cycle ahead (above): room_q - room_len - push_b not negative.
  logic credit_q;
  logic signed [CredW:0] credit_rem;
  assign credit_rem = room_q + ~room_len + (CredW + 1)'(!push_b);
  assign credit_ok  = credit_q;
  assign ar_valid_o = bg_ax_valid && credit_ok;
  assign r_ready_o  = gb_in_ready;

  vta_rd_gearbox #(.ElemBytes(InsnBytes), .BusBytes(BusBytes)) u_gb (
    .clk_i,
    .rst_ni,
    .in_valid_i (r_valid_i),
    .in_ready_o (gb_in_ready),
    .in_data_i  (r_data_i),
    .in_lo_i    (lo),
    .in_hi_i    (hi),
    .out_valid_o(gb_valid),
    .out_ready_i(buf_in_ready),
    .out_data_o (gb_insn)
  );

  vta_fifo #(.Width(InsnBytes * 8), .Depth(BufDepth)) u_buf (
    .clk_i,
    .rst_ni,
    .in_valid_i (gb_valid),
    .in_ready_o (buf_in_ready),
    .in_data_i  (gb_insn),
    .out_valid_o(buf_valid),
    .out_ready_i(route),
    .out_data_o (insn_o),
    .count_o    (buf_count),
    .head_load_o(),
    .head_next_o(),
    .head_fill_o()
  );

  // Routing (ISA.md section 4): LOADs of INP/WGT to load, STOREs to store, the rest to compute.
  memory_insn_t h;
  logic to_load, to_store;
  assign h        = insn_o;
  assign to_load  = (h.opcode == OpLoad) && (h.memory_type == MemInp || h.memory_type == MemWgt);
  assign to_store = (h.opcode == OpStore);
  assign load_valid_o    = buf_valid && to_load;
  assign store_valid_o   = buf_valid && to_store;
  assign compute_valid_o = buf_valid && !to_load && !to_store;
  assign route = buf_valid && (to_load ? load_ready_i : (to_store ? store_ready_i : compute_ready_i));

  always_comb begin
    // What arrives, is buffered and is routed is summed beside the burst's cost; the address
    // channel's answer only picks one of the two sums.
    // The route (the command queues' answers, behind their counts) is as late as the address
    // channel's: the four sums for the two answers are worked out side by side and the answers
    // pick one, with no sum behind them.
    // A beat received gives its room back a cycle late (r_fire_q), which only makes the credit
    // more careful for that cycle: the data channel's valid and the gearbox's ready in front
    // of the sums were 3.22 ns on the default.
    // Each a table of constants by the two flags (written as sums, yosys built a carry chain
    // for the + 1: 3.20 ns on block8).
    room_step   = r_fire_q ? (push_b ? StepW'(PerBeat - 1) : StepW'(PerBeat))
                           : (push_b ? -StepW'(1) : '0);
    room_step1  = r_fire_q ? (push_b ? StepW'(PerBeat) : StepW'(PerBeat + 1))
                           : (push_b ? '0 : StepW'(1));
    room_stepb  = r_fire_q ? (push_b ? -StepW'(1) : '0)  // room_step - PerBeat
                           : (push_b ? -StepW'(PerBeat + 1) : -StepW'(PerBeat));
    room_stepb1 = r_fire_q ? (push_b ? '0 : StepW'(1))
                           : (push_b ? -StepW'(PerBeat) : -StepW'(PerBeat - 1));
    // After a burst: roomb_q less the burst's cost plus the step, each a carry-save sum of the
    // three (add3: one level of LUTs, then one carry chain), with the route's +1 in the step
    // (the cost's difference and the step's sum chained were 3.12 ns on the default).
    room_q0   = room_q + (CredW + 1)'(room_step);
    room_q1   = room_q + (CredW + 1)'(room_step) + 1'b1;
    room_r0   = add3(roomb_q, ~room_len, (CredW + 1)'(room_step));
    room_r1   = add3(roomb_q, ~room_len, (CredW + 1)'(room_step1));
    roomb_q0  = roomb_q + (CredW + 1)'(room_step);
    roomb_q1  = roomb_q + (CredW + 1)'(room_step) + 1'b1;
    roomb_r0  = add3(roomb_q, ~room_len, (CredW + 1)'(room_stepb));
    roomb_r1  = add3(roomb_q, ~room_len, (CredW + 1)'(room_stepb1));
    remaining_d = remaining_q;
    if (start_i) remaining_d = insn_count_i;
    else if (route) remaining_d = remaining_q - 1'b1;
  end

  // The address channel's answer and the route pick last among the four sums, a kept LUT per
  // bit (vta_pick4) behind the carry chains, each answer one net (ar_fire, behind a vta_cut:
  // abc had merged the answer's three terms into the pick and put a second LUT level behind
  // the chains, 3.03-3.19 ns on block32).
  logic ar_fire_w, ar_fire;
  assign ar_fire_w = ar_valid_o && ar_ready_i;
  vta_cut u_ar_fire_cut (.i(ar_fire_w), .o(ar_fire));
  vta_pick4 #(.W(CredW + 1)) u_room_pick (
    .s1_i(ar_fire), .s0_i(route), .a_i(room_r1), .b_i(room_r0), .c_i(room_q1), .d_i(room_q0),
    .o_o(room_d)
  );
  vta_pick4 #(.W(CredW + 1)) u_roomb_pick (
    .s1_i(ar_fire), .s0_i(route), .a_i(roomb_r1), .b_i(roomb_r0), .c_i(roomb_q1),
    .d_i(roomb_q0), .o_o(roomb_d)
  );

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      r_fire_q    <= 1'b0;
      credit_q    <= 1'b0;
      room_q      <= $signed((CredW + 1)'(BufDepth - 2 * PerBeat));
      roomb_q     <= $signed((CredW + 1)'(BufDepth - 3 * PerBeat));
      remaining_q <= '0;
    end else begin
      r_fire_q    <= r_valid_i && r_ready_o;
      credit_q    <= !credit_rem[CredW];
      room_q      <= room_d;
      roomb_q     <= roomb_d;
      remaining_q <= remaining_d;
    end
  end

  // Done (no instruction left to route) is a register beside the count, set from comparisons
  // of registers, so the control block's status read does not wait for a 32-bit zero test.
  logic done_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) done_q <= 1'b1;
    else if (start_i) done_q <= (insn_count_i == '0);
    else if (route) done_q <= (remaining_q == 32'd1);
  end
  assign done_o = done_q;

`ifndef SYNTHESIS
  // The room register against its definition, from a count of the beats in flight.
  int inflight_sim;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) inflight_sim <= 0;
    else inflight_sim <= inflight_sim + ((ar_valid_o && ar_ready_i) ? int'(ar_len_o) + 1 : 0) -
                         ((r_valid_i && r_ready_o) ? 1 : 0);
    if (rst_ni) begin
      assert (!(gb_valid && !buf_in_ready)) else $error("vta_fetch: instruction buffer overflow");
      assert (done_q == (remaining_q == '0)) else $error("vta_fetch: the done flag disagrees");
      assert (roomb_q == room_q - (CredW + 1)'(PerBeat))
      else $error("vta_fetch: the room's copy less a beat disagrees");
      assert (int'(room_q) == int'(BufDepth) - int'(buf_count) -
              (inflight_sim + 2 + (r_fire_q ? 1 : 0)) * int'(PerBeat))
      else $error("vta_fetch: room %0d, buffer %0d, %0d beats in flight", room_q, buf_count,
                  inflight_sim);
      // The credit made a cycle ahead holds for the burst that goes.
      assert (!(ar_valid_o && ar_ready_i) || int'(room_len) <= int'(room_q))
      else $error("vta_fetch: a burst of %0d beats went with room for %0d instructions",
                  int'(ar_len_o) + 1, room_q);
    end
  end
`endif
endmodule

// vta_row_beats - walks the beats of a 2-D transfer in order and says which bytes of each beat
// belong to the transfer.
//
// The data side of a DMA needs, for every beat, the first and last byte that carry data (lo,
// hi): rows need not start or end on a beat boundary when elements are narrower than the bus.
// This walker takes the same command as vta_burst_gen and steps once per beat, independently of
// how the beats were split into bursts, so address and data sides never exchange row state. The
// next command is taken in the cycle the last beat of the current one steps, so the beats of
// back-to-back transfers are tagged without a gap.
module vta_row_beats #(
  parameter int unsigned AddrW       = 64,
  parameter int unsigned RowsW       = 16,
  parameter int unsigned LogBusBytes = 3,
  parameter int unsigned RowBytesW   = AddrW, // cmd_row_bytes_i's bits above these are zero
  // The parent gives a command only while no transfer runs (vta_compute's DMA: one load at a
  // time, the next started after the last one's writes): cmd_ready_o is then a register, not
  // behind the step (the element handshake of the ACC_8BIT gearbox through the beat's ready
  // was 3.16-3.50 ns into the queue in front).
  parameter bit          IdleTake    = 1'b0,
  // cmd_part_i carries the command's first row's partial beats (vta_part_beats of its base and
  // row bytes), a register of the parent's; without PartIn they are worked out here.
  parameter bit          PartIn      = 1'b0,
  // cmd_one_i says whether that row is one beat (a register of the parent's, as cmd_part_i);
  // without OneIn it is worked out here from the row's bytes and its partial beats.
  parameter bit          OneIn       = 1'b0
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  logic [LogBusBytes-1:0] cmd_base_lo_i,    // the low bits of the first row's address
  input  logic [LogBusBytes-1:0] cmd_stride_lo_i,  // and of the stride between rows
  input  logic [AddrW-1:0]       cmd_row_bytes_i,  // > 0
  input  logic [RowsW-1:0]       cmd_rows_i,       // > 0
  input  logic [1:0]             cmd_part_i,       // with PartIn
  input  logic                   cmd_one_i,        // with OneIn
  output logic                   valid_o,
  input  logic                   step_i,           // the current beat was transferred
  output logic [LogBusBytes-1:0] lo_o,             // first byte of the beat that belongs
  output logic [LogBusBytes-1:0] hi_o,             // last byte of the beat that belongs
  output logic                   last_o            // last beat of the transfer
);
  localparam int unsigned L = LogBusBytes;
  localparam int unsigned HiW = (RowBytesW > L) ? RowBytesW - L : 1;
  localparam int unsigned BeatsW = HiW + 2;

  // Only the low L bits of the row addresses matter here (where a row starts and ends within a
  // beat); the beats of a row are its whole beats plus 0, 1 or 2 by those bits, kept ready, and
  // the beats left count down to a flag set a beat ahead, so no wide sum or comparison lies on
  // the step path.
  logic              active_q, last_row_q, first_q, last_q;
  logic [RowsW-1:0]  rows_left_q;
  logic [L-1:0]      row_lo_q, stride_lo_q, rb_lo_q, next_lo_q, after_lo, cmd_next_lo, row_end;
  logic [BeatsW-1:0] left_q, rb_beats_q [3];
  logic [2:0]        rb_one_q;
  logic [HiW-1:0]    cmd_hi;
  logic [1:0]        cmd_part, row_part_q;

  // The partial beats (vta_part_beats) of a command's first row, of the row after the next
  // one, of a new command's second row, and (for the assertion) of the next row.
  logic [1:0] after_part, cmd_next_part, next_part;
  logic [1:0] cmd_part_w;
  vta_part_beats #(.LogBusBytes(L)) u_cmd_part (
    .start_lo_i(cmd_base_lo_i), .bytes_lo_i(cmd_row_bytes_i[L-1:0]), .part_o(cmd_part_w)
  );
  assign cmd_part = PartIn ? cmd_part_i : cmd_part_w;
  vta_part_beats #(.LogBusBytes(L)) u_after_part (
    .start_lo_i(after_lo), .bytes_lo_i(rb_lo_q), .part_o(after_part)
  );
  vta_part_beats #(.LogBusBytes(L)) u_cmd_next_part (
    .start_lo_i(cmd_next_lo), .bytes_lo_i(cmd_row_bytes_i[L-1:0]), .part_o(cmd_next_part)
  );
  vta_part_beats #(.LogBusBytes(L)) u_next_part (
    .start_lo_i(next_lo_q), .bytes_lo_i(rb_lo_q), .part_o(next_part)
  );

  logic [BeatsW-1:0] cmd_beats [3];  // a command's whole beats + 0, 1, 2
  for (genvar k = 0; k < 3; k++) begin : g_cmd_beats
    assign cmd_beats[k] = BeatsW'(cmd_hi) + BeatsW'(k);
  end
  assign row_end     = row_lo_q + rb_lo_q - 1'b1;
  // The next row's start (next_lo_q) and its partial beats (row_part_q) are registers, worked
  // out when the row before it starts (from the one after, after_lo), so the step to the next
  // row picks its beat count with no sum in front.
  // (Sums written as logic, vta_add_lut: they feed the partial beats' logic, not a chain.)
  /* verilator lint_off UNUSEDSIGNAL */  // (their carries out)
  logic [L:0] after_sum, cmd_next_sum;
  /* verilator lint_on UNUSEDSIGNAL */
  vta_add_lut #(.W(L)) u_after_lo (.a_i(next_lo_q), .b_i(stride_lo_q), .sum_o(after_sum));
  vta_add_lut #(.W(L)) u_cmd_next_lo (
    .a_i(cmd_base_lo_i), .b_i(cmd_stride_lo_i), .sum_o(cmd_next_sum)
  );
  assign after_lo    = after_sum[L-1:0];
  assign cmd_next_lo = cmd_next_sum[L-1:0];
  assign cmd_hi      = HiW'(cmd_row_bytes_i[RowBytesW-1:0] >> L);
  // Whether the beats left are two (the next step's last-beat flag): the bits above the low two
  // ORed in groups of six, a kept level (vta_cut), then with the low two in one LUT. (abc had
  // mapped the comparison as four LUT and MUXF levels in front of last_q's pick: 3.08 ns on
  // batch4, whose compute DMA counts 26 bits.)
  localparam int unsigned NzG = (BeatsW - 2 + 5) / 6;
  logic [6*NzG-1:0] left_hi;
  logic [NzG-1:0]   left_nz_w, left_nz;
  logic             left_two;
  assign left_hi = (6 * NzG)'(left_q[BeatsW-1:2]);
  always_comb begin
    for (int g = 0; g < NzG; g++) left_nz_w[g] = |left_hi[6*g +: 6];
  end
  vta_cut #(.W(NzG)) u_left_nz_cut (.i(left_nz_w), .o(left_nz));
  assign left_two = left_q[1:0] == 2'd2 && !(|left_nz);
  // last_q's and left_q's next values are picked at the end by the two late inputs, the step
  // (the beat's handshake) and the command's valid (a parent's take: the store's start waits on
  // its queue and the token), by kept multiplexers (vta_pick4) between four candidates worked
  // out in front of them from registers: with a step, a row's inner beat takes the decrement
  // (and left_two), its last beat the next row's count and one-beat flag, or without IdleTake,
  // when the transfer ends and a command waits, the new command's; without a step, an idle
  // walker takes a waiting command's, else both hold. Left to abc, the step went through two or
  // three more LUT levels (3.02-3.08 ns into last_q on the compute DMA of the default, block4
  // and batch4, 3.11 on block4's load DMA); picked by the step alone, with the valid inside the
  // candidates, 3.32 on block4's store. The new command's one-beat flag comes from the parent's
  // registers with OneIn (vta_load_2d's queue, vta_store's head: from the fields, 3.08 ns on
  // the default and 3.04 on block4, the queue's multiplexer in front).
  logic last_sv, last_s, last_v, last_d, cmd_one, cmd_one_w, last_take;
  assign cmd_one_w = (cmd_hi == '0 && cmd_part == 2'd1) || (cmd_hi == HiW'(1) && cmd_part == 2'd0);
  assign cmd_one   = OneIn ? cmd_one_i : cmd_one_w;
  // (a step comes only while a transfer runs; with one, a command is taken at its last beat)
  assign last_take = !IdleTake && last_row_q;
  assign last_s    = last_q ? rb_one_q[row_part_q] : left_two;
  assign last_sv   = !last_q ? left_two : last_take ? cmd_one : rb_one_q[row_part_q];
  assign last_v    = !active_q ? cmd_one : last_q;
  vta_pick4 #(.W(1)) u_last_pick (
    .s1_i(step_i), .s0_i(cmd_valid_i), .a_i(last_sv), .b_i(last_s), .c_i(last_v), .d_i(last_q),
    .o_o(last_d)
  );

  assign cmd_ready_o = IdleTake ? !active_q : (!active_q || (step_i && last_o));
  assign valid_o     = active_q;
  assign lo_o        = first_q ? row_lo_q : '0;
  assign hi_o        = last_q ? row_end : '1;
  assign last_o      = last_q && last_row_q;

  // A new command's beats left: its whole beats plus its partial count (cmd_part, with PartIn
  // a register) as one sum, split (vta_add_split: the upper half's sums for both carries side
  // by side, picked by the lower half's carry), so one short chain and the take's pick lie in
  // front of left_q. (The three sums side by side picked by the partial count put two LUTs
  // behind the chains, 3.05 ns on block4's load DMA; the one sum unsplit, 3.02.)
  logic [BeatsW-1:0] left_tk;
  vta_add_split #(.W(BeatsW), .Lo(BeatsW / 2)) u_left_tk (
    .a_i(BeatsW'(cmd_hi)), .b_i(BeatsW'(cmd_part)), .sum_o(left_tk)
  );

  // left_q's next value likewise (above).
  logic [BeatsW-1:0] left_dec, left_sv, left_s, left_v, left_d;
  assign left_dec = left_q - 1'b1;
  assign left_s   = last_q ? rb_beats_q[row_part_q] : left_dec;
  assign left_sv  = !last_q ? left_dec : last_take ? left_tk : rb_beats_q[row_part_q];
  assign left_v   = !active_q ? left_tk : left_q;
  vta_pick4 #(.W(BeatsW)) u_left_pick (
    .s1_i(step_i), .s0_i(cmd_valid_i), .a_i(left_sv), .b_i(left_s), .c_i(left_v), .d_i(left_q),
    .o_o(left_d)
  );

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      active_q    <= 1'b0;
      last_row_q  <= 1'b0;
      first_q     <= 1'b0;
      last_q      <= 1'b0;
      rows_left_q <= '0;
      row_lo_q    <= '0;
      next_lo_q   <= '0;
      row_part_q  <= '0;
      stride_lo_q <= '0;
      rb_lo_q     <= '0;
      left_q      <= '0;
      rb_one_q    <= '0;
      for (int k = 0; k < 3; k++) rb_beats_q[k] <= '0;
    end else begin
      last_q <= last_d;
      left_q <= left_d;
      if (active_q && step_i) begin
        if (last_q) begin
          if (last_row_q) active_q <= 1'b0;
          rows_left_q <= rows_left_q - 1'b1;
          last_row_q  <= (rows_left_q == RowsW'(2));
          row_lo_q    <= next_lo_q;
          next_lo_q   <= after_lo;
          row_part_q  <= after_part;
          first_q     <= 1'b1;
        end else begin
          first_q <= 1'b0;
        end
      end
      if (cmd_valid_i && cmd_ready_o) begin
        active_q    <= 1'b1;
        rows_left_q <= cmd_rows_i;
        last_row_q  <= (cmd_rows_i == RowsW'(1));
        row_lo_q    <= cmd_base_lo_i;
        next_lo_q   <= cmd_next_lo;
        row_part_q  <= cmd_next_part;
        stride_lo_q <= cmd_stride_lo_i;
        rb_lo_q     <= cmd_row_bytes_i[L-1:0];
        first_q     <= 1'b1;
        for (int k = 0; k < 3; k++) rb_beats_q[k] <= cmd_beats[k];
        // cmd_beats[k] == 1 of the fields, not behind the sums (BeatsW > HiW: no wrap; 3.19 ns
        // on the default behind them)
        rb_one_q    <= {1'b0, cmd_hi == '0, cmd_hi == HiW'(1)};
      end
    end
  end

`ifndef SYNTHESIS
  // The picks' values against the walker's definition: a step moves to the row's next beat or
  // the next row's first, and a take starts the new command's first row.
  logic [BeatsW-1:0] left_ref;
  logic              last_ref;
  always_comb begin
    left_ref = left_q;
    last_ref = last_q;
    if (active_q && step_i) begin
      left_ref = last_q ? rb_beats_q[row_part_q] : left_dec;
      last_ref = last_q ? rb_one_q[row_part_q] : left_two;
    end
    if (cmd_valid_i && cmd_ready_o) begin
      left_ref = left_tk;
      last_ref = cmd_one_w;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (left_d == left_ref && last_d == last_ref)
      else $error("vta_row_beats: next beats left %0d, last %0d; by the definition %0d, %0d",
                  left_d, last_d, left_ref, last_ref);
    if (rst_ni && step_i) assert (active_q) else $error("vta_row_beats: step with no transfer");
    if (rst_ni && active_q)
      assert (rb_one_q == {rb_beats_q[2] == BeatsW'(1), rb_beats_q[1] == BeatsW'(1),
                           rb_beats_q[0] == BeatsW'(1)})
      else $error("vta_row_beats: the one-beat flags disagree with the beat counts");
    if (rst_ni) assert (!(step_i && !last_q && cmd_valid_i && cmd_ready_o))
      else $error("vta_row_beats: a command taken while a row's inner beat steps");
    if (rst_ni) assert (left_two == (left_q == BeatsW'(2)))
      else $error("vta_row_beats: the two-beats-left flag disagrees with the count");
    if (rst_ni && OneIn && cmd_valid_i)
      assert (cmd_one_i == cmd_one_w)
      else $error("vta_row_beats: the command's one-beat flag %0d, from its fields %0d",
                  cmd_one_i, cmd_one_w);
    if (rst_ni && PartIn && cmd_valid_i)
      assert (cmd_part_i == cmd_part_w)
      else $error("vta_row_beats: the command's partial beats %0d, from its fields %0d",
                  cmd_part_i, cmd_part_w);
    if (rst_ni && IdleTake)
      assert (!(cmd_valid_i && active_q))
      else $error("vta_row_beats: IdleTake, but a command waits while a transfer runs");
    if (rst_ni && active_q)
      assert (next_lo_q == L'(row_lo_q + stride_lo_q) &&
              row_part_q == next_part)
      else $error("vta_row_beats: the next row's registers disagree with the current row's");
    if (rst_ni && cmd_valid_i && cmd_ready_o)
      assert ((cmd_row_bytes_i >> RowBytesW) == '0)
      else $error("vta_row_beats: %0d row bytes need more than %0d bits", cmd_row_bytes_i, RowBytesW);
  end
`endif
endmodule

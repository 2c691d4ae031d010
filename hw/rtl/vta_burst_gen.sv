// vta_burst_gen - turns a 2-D transfer (rows of row_bytes at a byte stride) into AXI4 INCR
// bursts of whole bus beats.
//
// Each row is covered by the aligned beats that contain it; a burst never exceeds MaxBeats and
// never crosses a 4 KiB boundary (AXI4 rule). The generator runs ahead of the data: it issues
// every burst of a transfer as fast as the address channel accepts them, so with a memory of
// long latency several bursts are in flight and the data channel stays busy back to back. The
// next row's first burst is computed in the same cycle as the previous row's last one, so a
// transfer of many short rows still issues one burst per cycle.
module vta_burst_gen #(
  parameter int unsigned AddrW       = 64,
  parameter int unsigned RowsW       = 16,
  parameter int unsigned LogBusBytes = 3,
  parameter int unsigned MaxBeats    = 16,    // a power of two >= 2
  parameter int unsigned RowBytesW   = AddrW,  // cmd_row_bytes_i's bits above these are zero
  // cmd_page_i and cmd_part_i carry the command's beats to the 4 KiB boundary and its row's
  // partial beats (vta_page_beats of its base, vta_part_beats of its base and row bytes),
  // worked out by the parent into registers; without PageIn they are worked out here.
  parameter bit          PageIn      = 1'b0,
  // The command's first burst worked out from registers: its pieces (row beats, over MaxBeats,
  // the comparison with the page) are registered as the command is taken and the burst itself
  // in the cycle after, so the first address goes out a cycle later (one cycle per command;
  // the compute module's loads, one at a time, take it: its first burst from the command's
  // fields was 3.4-3.7 ns; and the store's). With it the next burst is a kept pick (below).
  parameter bit          CmdReg      = 1'b0,
  // The same row's next burst and address registered (with CmdReg): a burst goes out at most
  // every other cycle, the next one worked out in the cycle between, and a command's first a
  // cycle later again (fetch: a cycle per run; its 36-bit beat counts' comparisons in front of
  // the burst register were 3.22 ns on the default; its bursts are long, so the gap costs no
  // throughput).
  parameter bit          SameReg     = 1'b0,
  // With SameReg: the gap only in front of a burst that does not end its row (only such a
  // burst's successor is the registered same-row burst); a row's last burst goes out in the
  // cycle after it is loaded, as without SameReg. (The store on every bus and the load DMAs on
  // buses of 128 bits and more, whose same-row next burst was 3.05-3.19 ns: their rows' bursts
  // are up to 16 beats long, so the gap is hidden behind the data.)
  parameter bit          SameLast    = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             cmd_valid_i,
  output logic             cmd_ready_o,
  input  logic [AddrW-1:0] cmd_base_i,
  input  logic [$clog2((4096 >> LogBusBytes) + 1)-1:0] cmd_page_i,  // with PageIn
  input  logic [1:0]       cmd_part_i,       // with PageIn
  input  logic [AddrW-1:0] cmd_stride_i,     // bytes between row starts
  input  logic [AddrW-1:0] cmd_row_bytes_i,  // > 0
  input  logic [RowsW-1:0] cmd_rows_i,       // > 0
  output logic             ax_valid_o,
  input  logic             ax_ready_i,
  output logic [AddrW-1:0] ax_addr_o,
  output logic [7:0]       ax_len_o,         // beats - 1
  output logic             busy_o
);
  localparam logic [AddrW-1:0] BusMask = AddrW'((1 << LogBusBytes) - 1);
  localparam int unsigned LogMaxBeats = $clog2(MaxBeats);
  // Beats from an address to the next 4 KiB boundary: at most PageBeats.
  localparam int unsigned PageBeats = 4096 >> LogBusBytes;
  localparam int unsigned PageW = $clog2(PageBeats + 1);
  localparam int unsigned LenW = LogMaxBeats + 1;
  // A row's beats: its whole beats plus up to two for the partial ones at its ends.
  localparam int unsigned HiW = (RowBytesW > LogBusBytes) ? RowBytesW - LogBusBytes : 1;
  localparam int unsigned BeatsW = HiW + 2;
  localparam int unsigned L = LogBusBytes;

  typedef struct packed {
    logic [BeatsW-1:0] beats_left;  // of the current row, this burst's included
    logic [PageW-1:0]  to_4k;       // beats from this burst's start to the 4 KiB boundary
    logic [LenW-1:0]   len;         // this burst's beats
    logic [7:0]        len_m1;      // and less one, as AxLEN wants it
    logic              row_last;    // this burst ends its row
  } burst_t;

  logic             active_q, last_row_q;
  logic             first_q;  // CmdReg: the command's first cycle, its first burst worked out
  logic [RowsW-1:0] rows_left_q;
  logic [AddrW-1:0] nr_q, stride_q, cur_q;       // nr_q: the next row's start address
  logic [L-1:0]     rb_lo_q;                      // row bytes mod the bus width
  logic [BeatsW-1:0] rb_beats_q [3];              // whole beats of a row + 0, 1, 2
  logic [LenW-1:0]  rb_m1_q;                      // the low bits of the whole beats - 1
  logic [2:0]       rb_over_q;                    // each of them exceeds MaxBeats
  // The next row's beats (whole + its partial ones), their low bits less one and whether they
  // exceed MaxBeats: rb_*_q picked by its partial beats as the row's address is worked out.
  logic [BeatsW-1:0] nb_beats_q;
  logic [LenW-1:0]  nb_m1_q;
  logic             nb_over_q;
  logic [PageW-1:0] nr_page_q;                    // its beats to the 4 KiB boundary
  burst_t           b_q, b_same, b_d;
  logic [AddrW-1:0] cur_d, nr_d;
  logic [AddrW-1:0] nr_cmd, nr_row;  // the next row's address after a new command, a row
  logic [AddrW-1:0] nr_cmd_q;        // CmdReg: nr_cmd registered while idle
  logic [HiW-1:0]   cmd_rb_hi;
  logic             fire;

  // A burst's length, min(beats left in the row, MaxBeats, beats to the 4 KiB boundary), and
  // whether it is the row's last, from whether the beats left exceed MaxBeats (over) and their
  // low bits: no wide comparison or sum lies on the way to the length.
  localparam int unsigned BurstW = BeatsW + PageW + LenW + 8 + 1;  // $bits(burst_t)
  localparam int unsigned NW = LogMaxBeats + 2;                 // narrow sums: up to 4 MaxBeats
  // left_m1 is the low bits of left - 1, worked out beside left, so that the length less one
  // is picked rather than subtracted after the comparison with the page (as is page - 1: only
  // taken when the page is the shorter, below MaxBeats). lt is PageW'(left[LenW-1:0]) > page,
  // worked out by the caller (read only when not over).
  function automatic logic [BurstW-1:0] burst_of(logic [BeatsW-1:0] left,
                                                 logic [LenW-1:0] left_m1, logic over,
                                                 logic [PageW-1:0] page, logic lt);
    logic            cap;
    logic [LenW-1:0] len, len_m1;
    len    = over ? LenW'(MaxBeats) : left[LenW-1:0];
    len_m1 = over ? LenW'(MaxBeats - 1) : left_m1;
    // (MaxBeats > page as page's high bits, not a comparison: yosys would share one comparator
    // between the two behind a multiplexer of its operands, after over.)
    cap    = over ? ((page >> LogMaxBeats) == '0) : lt;
    burst_of = {left, page, cap ? LenW'(page) : len, cap ? 8'(page) - 8'd1 : 8'(len_m1),
                !over && !cap};
  endfunction
  // A row's beats and beats less one by its partial count, from the row beats registered for
  // the command (rb_beats_q, rb_m1_q): the next row's, after a row and (CmdReg) in the
  // command's first cycle.
  function automatic logic [BeatsW+LenW-1:0] rb_pick(logic [1:0] pt);
    unique case (pt)
      2'd0:    rb_pick = {rb_beats_q[0], rb_m1_q};
      2'd1:    rb_pick = {rb_beats_q[1], rb_beats_q[0][LenW-1:0]};
      default: rb_pick = {rb_beats_q[2], rb_beats_q[1][LenW-1:0]};
    endcase
  endfunction
  // Whether y + c exceeds MaxBeats, for a small c: y at least 2 MaxBeats decides it by its high
  // bits; below that the narrow sum is exact.
  function automatic logic over_sum(logic [BeatsW-1:0] y, logic [1:0] c);
    logic [NW-1:0] n;
    n = NW'(y) + NW'(c);
    over_sum = ((BeatsW > LogMaxBeats + 1) && (|(y >> (LogMaxBeats + 1)))) ||
               (n > NW'(MaxBeats));
  endfunction
  // Whether left - len exceeds MaxBeats, for len <= MaxBeats <= left: left at least 4 MaxBeats
  // decides it; below that the narrow difference is exact.
  function automatic logic over_diff(logic [BeatsW-1:0] left, logic [LenW-1:0] len);
    logic [NW-1:0] n;
    n = NW'(left) - NW'(len);
    over_diff = ((BeatsW > NW) && (|(left >> NW))) || (n > NW'(MaxBeats));
  endfunction

  // The same row's next burst (taken only after a burst that did not end its row):
  // burst_of(left, left_m1, over, t4) with left = bl - len and t4 = to_4k - len (PageBeats when
  // the burst ends at the boundary), but without its comparison behind the two subtractions.
  // At the boundary the next burst starts a page and is not capped (MaxBeats <= PageBeats).
  // Otherwise the burst was not capped, so (not ending its row) it was MaxBeats long: left > t4
  // is bl > to_4k and MaxBeats > t4 is 2 MaxBeats > to_4k (to_4k's high bits), both of
  // registers (len <= to_4k and len <= bl: a burst never crosses the boundary or its row). An
  // assertion below checks it against burst_of.
  function automatic logic [BurstW-1:0] burst_same(logic [BeatsW-1:0] bl, logic [PageW-1:0] to4k,
                                                   logic [LenW-1:0] len,
                                                   logic [BeatsW-1:0] left,
                                                   logic [LenW-1:0] left_m1,
                                                   logic [PageW-1:0] t4,
                                                   /* verilator lint_off UNUSEDSIGNAL */
                                                   logic [PageW-1:0] t4_m1);  // low 8 bits
                                                   /* verilator lint_on UNUSEDSIGNAL */
    localparam int unsigned CW = (BeatsW > PageW) ? BeatsW + 1 : PageW + 1;
    logic            over, cap;
    logic [LenW-1:0] ln, ln_m1;
    logic [LenW:0]   lm;  // len + MaxBeats, for 1 <= len <= MaxBeats: wiring, not a sum
    // left - len > MaxBeats as bl > len + MaxBeats, one comparison of registers, rather than a
    // comparison behind the difference.
    lm    = {len[LenW-1], !len[LenW-1], len[LenW-2:0]};
    over  = (CW'(bl) > CW'(lm));
    cap   = (to4k != PageW'(len)) &&
            (over ? ((to4k >> (LogMaxBeats + 1)) == '0) : (CW'(bl) > CW'(to4k)));
    ln    = over ? LenW'(MaxBeats) : left[LenW-1:0];
    ln_m1 = over ? LenW'(MaxBeats - 1) : left_m1;
    burst_same = {left, t4, cap ? LenW'(t4) : ln, cap ? 8'(t4_m1) : 8'(ln_m1), !over && !cap};
  endfunction

  // Every register of the next burst is worked out from registers before the address
  // channel's answer is known, for each of the three things that can follow (the same row's
  // next burst, the next row's first, a new command's first); the answer only picks one. The
  // next row's address, partial beats and beats to the 4 KiB boundary are registers, worked
  // out when the row before it starts, and the row's whole beats are kept with one and two
  // added (and less one), so no sum lies on the path to the next row's burst length.
  assign cmd_ready_o = !active_q;
  logic gap_q;  // SameReg: a burst went out in the cycle before
  logic hold;   // the gap applies to the burst in b_q
  assign hold        = gap_q && (!SameLast || !b_q.row_last);
  assign ax_valid_o  = active_q && !first_q && !hold;
  assign ax_addr_o   = cur_q;
  assign ax_len_o    = b_q.len_m1;
  assign busy_o      = active_q;
  assign fire        = active_q && !first_q && !hold && ax_ready_i;
  assign cmd_rb_hi   = HiW'(cmd_row_bytes_i[RowBytesW-1:0] >> L);

  // Beats to the 4 KiB boundary from the command's base and from the two next-row addresses.
  logic [PageW-1:0] pg_cmd, pg_nr_cmd, pg_nr_row;
  vta_page_beats #(.LogBusBytes(L)) u_pg_cmd (.addr_i(cmd_base_i[11:0]), .beats_o(pg_cmd));
  vta_page_beats #(.LogBusBytes(L)) u_pg_nr_cmd (.addr_i(nr_cmd[11:0]), .beats_o(pg_nr_cmd));
  vta_page_beats #(.LogBusBytes(L)) u_pg_nr_row (.addr_i(nr_row[11:0]), .beats_o(pg_nr_row));
  // The partial beats of a row (vta_part_beats): the command's first, the next row's after a
  // command and after a row.
  logic [1:0] pt_cmd, pt_nr_cmd, pt_a_cmd, pt_a_row;
  // The low address bits these read are sums written as logic (vta_add_lut), not the low end
  // of the address adders' carry chains, so that each partial count is a function of a few
  // register bits (the next row's after a command: 3.56 ns on the default through the chains).
  /* verilator lint_off UNUSEDSIGNAL */  // (their carries out)
  logic [L:0] nr_cmd_lo, a_cmd_lo, a_row_lo;
  /* verilator lint_on UNUSEDSIGNAL */
  vta_add_lut #(.W(L)) u_nr_cmd_lo (
    .a_i(cmd_base_i[L-1:0]), .b_i(cmd_stride_i[L-1:0]), .sum_o(nr_cmd_lo)
  );
  vta_part_beats #(.LogBusBytes(L)) u_pt_cmd (
    .start_lo_i(cmd_base_i[L-1:0]), .bytes_lo_i(cmd_row_bytes_i[L-1:0]), .part_o(pt_cmd)
  );
  vta_part_beats #(.LogBusBytes(L)) u_pt_nr_cmd (
    .start_lo_i(nr_cmd_lo[L-1:0]), .bytes_lo_i(cmd_row_bytes_i[L-1:0]), .part_o(pt_nr_cmd)
  );
  // And the partial beats of the row after the next one (pt_a_q), worked out a row ahead
  // from the low address bits alone (start + 2 stride), after a command and after a row: when
  // a row starts, the next row's beats are a pick of registers by a register.
  logic [1:0]   pt_a_q;
  vta_add_lut #(.W(L)) u_a_cmd_lo (
    .a_i(cmd_base_i[L-1:0]), .b_i(cmd_stride_i[L-1:0] << 1), .sum_o(a_cmd_lo)
  );
  vta_add_lut #(.W(L)) u_a_row_lo (
    .a_i(nr_q[L-1:0]), .b_i(stride_q[L-1:0] << 1), .sum_o(a_row_lo)
  );
  vta_part_beats #(.LogBusBytes(L)) u_pt_a_cmd (
    .start_lo_i(a_cmd_lo[L-1:0]), .bytes_lo_i(cmd_row_bytes_i[L-1:0]), .part_o(pt_a_cmd)
  );
  vta_part_beats #(.LogBusBytes(L)) u_pt_a_row (
    .start_lo_i(a_row_lo[L-1:0]), .bytes_lo_i(rb_lo_q), .part_o(pt_a_row)
  );
  // A new command's first burst: its partial beats c (a register where PageIn) pick the row's
  // beats, rb_hi + c, and their low bits less one first, so that only one comparison with the
  // beats to the 4 KiB boundary is made: rb_hi + c > page, as the sign of rb_hi + c - page - 1
  // = rb_lo + c + ~page in LenW + 2 bits (one carry chain behind a row of 3:2 compressors;
  // rb_lo is rb_hi's low bits, all of it when the row is not over MaxBeats, the only case in
  // which the comparison is read), true only for a page below 2^LenW. (Worked out for each c
  // and picked behind the comparisons, the paths ran through six LUT levels after the chain.)
  logic [1:0]        c_part;
  logic [PageW-1:0]  c_page;
  logic [BeatsW-1:0] c_left;
  logic [LenW-1:0]   c_left_m1;
  logic              c_over, c_lt;
  always_comb begin
    logic [LenW+1:0] x, y, z, sum, cy, d;
    c_part    = PageIn ? cmd_part_i : pt_cmd;
    c_page    = PageIn ? cmd_page_i : pg_cmd;
    c_left    = BeatsW'(cmd_rb_hi) + BeatsW'(c_part);
    c_left_m1 = LenW'(cmd_rb_hi) - 1'b1 + LenW'(c_part);
    c_over    = over_sum(BeatsW'(cmd_rb_hi), c_part);
    x   = {2'b0, cmd_rb_hi[LenW-1:0]};
    y   = (LenW + 2)'(c_part);
    z   = ~{2'b0, c_page[LenW-1:0]};
    sum = x ^ y ^ z;
    cy  = {(x[LenW:0] & y[LenW:0]) | (x[LenW:0] & z[LenW:0]) | (y[LenW:0] & z[LenW:0]), 1'b0};
    d    = sum + cy;
    c_lt = ((c_page >> LenW) == '0) && !d[LenW+1];
  end
  // The next row's first burst, from registers: its beats (nb_*_q) were picked by its partial
  // beats when its address was worked out (a row or a command before), so only the comparison
  // with the beats to the boundary lies in front of it. It is kept (* keep *), so that
  // synthesis maps its bits as one LUT behind that comparison's carry chain (the cap picks the
  // page or the length) and the next state behind it, instead of folding the chain's output
  // into the first of several LUT levels (abc takes a carry chain's output as arriving at time
  // zero).
  (* keep *) logic [BurstW-1:0] b_row;
  assign b_row = burst_of(nb_beats_q, nb_m1_q, nb_over_q, nr_page_q,
                          PageW'(nb_beats_q[LenW-1:0]) > nr_page_q);
  // A new command's row beats for each partial count (0, 1, 2), kept apart so that synthesis
  // does not share one adder behind the pick of its second operand.
  (* keep *) logic [BeatsW-1:0] c_beats0, c_beats1, c_beats2;
  (* keep *) logic [LenW-1:0]   c_m1;
  (* keep *) logic [2:0]        c_overs;
  logic                         nb_over_cmd;  // nb_over_q's value for the command
  logic [1:0]                   pt_nr_cmdq;   // CmdReg: the command's next-row partial count
  assign c_beats0 = BeatsW'(cmd_rb_hi);
  assign c_beats1 = BeatsW'(cmd_rb_hi) + BeatsW'(1);
  assign c_beats2 = BeatsW'(cmd_rb_hi) + BeatsW'(2);
  assign c_m1     = LenW'(cmd_rb_hi) - 1'b1;
  assign c_overs  = {over_sum(BeatsW'(cmd_rb_hi), 2'd2), over_sum(BeatsW'(cmd_rb_hi), 2'd1),
                     over_sum(BeatsW'(cmd_rb_hi), 2'd0)};
  // The command's first burst, kept for the same reason (its comparison's chain, c_lt).
  (* keep *) logic [BurstW-1:0] b_cmd;
  if (CmdReg) begin : g_cmd_reg
    logic [BeatsW-1:0] c_left_q;
    logic [LenW-1:0]   c_left_m1_q;
    logic              c_over_q, c_lt_q;
    logic [PageW-1:0]  c_page_q;
    always_ff @(posedge clk_i) begin
      if (!active_q) begin
        c_left_q    <= c_left;
        c_left_m1_q <= c_left_m1;
        c_over_q    <= c_over;
        c_lt_q      <= c_lt;
        c_page_q    <= c_page;
      end
    end
    assign b_cmd = burst_of(c_left_q, c_left_m1_q, c_over_q, c_page_q, c_lt_q);
    always_ff @(posedge clk_i) begin
      if (!rst_ni) first_q <= 1'b0;
      else first_q <= !active_q && cmd_valid_i;
    end
    // The next row's overflow flag too: registered for each partial count while idle, and
    // picked into nb_over_q in the command's first cycle (no burst goes then, and b_row is
    // read only after the first row's last burst). Picked while idle, it lay behind the row
    // beats' sum and the three comparisons: 3.12-3.17 ns on the compute DMA.
    logic [2:0] c_overs_q;
    logic [1:0] c_pt_q;
    always_ff @(posedge clk_i) begin
      if (!active_q) begin
        c_overs_q <= c_overs;
        c_pt_q    <= pt_nr_cmd;
      end
    end
    assign nb_over_cmd = c_overs_q[c_pt_q];
    assign pt_nr_cmdq  = c_pt_q;
    // And the next row's address: summed into a register while idle and taken into nr_q in
    // the command's first cycle (nr_q is read only at a row's last burst, after it), not
    // picked behind the sum into nr_q while idle (3.06 ns on block8's load and store).
    always_ff @(posedge clk_i) begin
      if (!active_q) nr_cmd_q <= nr_cmd;
    end
  end else begin : g_cmd_now
    assign b_cmd   = burst_of(c_left, c_left_m1, c_over, c_page, c_lt);
    assign first_q = 1'b0;
    assign nb_over_cmd = c_overs[pt_nr_cmd];
    assign pt_nr_cmdq  = pt_nr_cmd;
    assign nr_cmd_q    = nr_cmd;
  end
  always_comb begin
    logic [PageW-1:0]  t4;
    logic [BeatsW-1:0] left;
    logic [LenW-1:0]   left_m1;
    logic [PageW-1:0]  t4_m1;
    t4      = (b_q.to_4k == PageW'(b_q.len)) ? PageW'(PageBeats) : b_q.to_4k - PageW'(b_q.len);
    // a - b - 1 as a + ~b: one carry chain of registers each (written as a difference less
    // one, synthesis chains a decrement behind the difference). t4 - 1, read only when the
    // next burst is capped at the boundary, so not when this one ends there (to_4k > len).
    t4_m1   = b_q.to_4k + ~(PageW'(b_q.len));
    left    = b_q.beats_left - BeatsW'(b_q.len);
    left_m1 = b_q.beats_left[LenW-1:0] + ~b_q.len;
    b_same  = burst_same(b_q.beats_left, b_q.to_4k, b_q.len, left, left_m1, t4, t4_m1);
  end

  // The 64-bit address sums split in two (vta_add_split).
  logic [AddrW-1:0] cur_same;
  vta_add_split #(.W(AddrW)) u_nr_cmd (.a_i(cmd_base_i), .b_i(cmd_stride_i), .sum_o(nr_cmd));
  vta_add_split #(.W(AddrW)) u_nr_row (.a_i(nr_q), .b_i(stride_q), .sum_o(nr_row));
  vta_add_split #(.W(AddrW)) u_cur (.a_i(cur_q), .b_i(AddrW'(b_q.len) << L), .sum_o(cur_same));
  // What follows a burst (the same row's next, or the next row's first) is picked by the
  // registered row_last; the address channel's answer (fire, late: behind the read arbiter's
  // grant; it implies active_q && !first_q) then picks between that and what it is without a
  // fire (a new command's first, or the burst held), in the last level. With CmdReg, where a
  // new command's first burst comes from registers, that last level is kept: the burst is one
  // LUT per bit (vta_pick4, by fire and row_last) behind its candidates, and the addresses one
  // (vta_pick): the same row's next burst is two LUTs behind its comparison chains, and
  // synthesis had put a LUT6 and a MUXF7 behind it (3.38 ns on the default), the addresses
  // behind the grant 3.27. Without CmdReg a command's first burst is as late as the same row's
  // next, and a kept pick in front of it would add a level to it (and the address pick costs a
  // LUT per bit).
  logic [AddrW-1:0] cur_nx, nr_nx, cur_nf, nr_nf, cur_sm;
  burst_t           b_nx, b_nf, b_sm;  // b_sm, cur_sm: the same row's next, or its register
  if (SameReg) begin : g_same_reg
    burst_t           b_same_q;
    logic [AddrW-1:0] cur_same_q;
    always_ff @(posedge clk_i) begin
      // (After a fire, and after the command's first cycle, when b_q takes its first burst.)
      if (!rst_ni) gap_q <= 1'b0;
      else gap_q <= fire || first_q;
      b_same_q   <= b_same;
      cur_same_q <= cur_same;
    end
    assign b_sm   = b_same_q;
    assign cur_sm = cur_same_q;
  end else begin : g_same_now
    assign gap_q  = 1'b0;
    assign b_sm   = b_same;
    assign cur_sm = cur_same;
  end
  always_comb begin
    b_nx   = b_q.row_last ? b_row : b_sm;
    cur_nx = b_q.row_last ? (nr_q & ~BusMask) : cur_sm;
    nr_nx  = b_q.row_last ? nr_row : nr_q;
    b_nf   = (!active_q || first_q) ? b_cmd : b_q;
    cur_nf = active_q ? cur_q : (cmd_base_i & ~BusMask);
    // (With CmdReg nr_q takes the registered sum in the command's first cycle; idle, it is
    // not read.)
    nr_nf  = CmdReg ? (first_q ? nr_cmd_q : nr_q) : (active_q ? nr_q : nr_cmd);
  end
  if (CmdReg) begin : g_pick
    logic unused_nx;  // (b_nx: the pick reads its two candidates instead)
    assign unused_nx = ^b_nx;
    vta_pick4 #(.W(BurstW)) u_b_pick (
      .s1_i(fire), .s0_i(b_q.row_last), .a_i(b_row), .b_i(b_sm), .c_i(b_nf), .d_i(b_nf),
      .o_o(b_d)
    );
    vta_pick #(.W(2 * AddrW)) u_addr_pick (
      .sel_i(fire), .a_i({cur_nx, nr_nx}), .b_i({cur_nf, nr_nf}), .o_o({cur_d, nr_d})
    );
  end else begin : g_mux
    assign b_d   = fire ? b_nx : b_nf;
    assign cur_d = fire ? cur_nx : cur_nf;
    assign nr_d  = fire ? nr_nx : nr_nf;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      active_q    <= 1'b0;
      last_row_q  <= 1'b0;
      rows_left_q <= '0;
      nr_q        <= '0;
      nb_beats_q  <= '0;
      nb_m1_q     <= '0;
      nb_over_q   <= 1'b0;
      pt_a_q      <= '0;
      nr_page_q   <= '0;
      rb_m1_q     <= '0;
      stride_q    <= '0;
      rb_lo_q     <= '0;
      cur_q       <= '0;
      b_q         <= '0;
      rb_over_q   <= '0;
      for (int k = 0; k < 3; k++) rb_beats_q[k] <= '0;
    end else begin
      b_q        <= b_d;
      cur_q      <= cur_d;
      nr_q       <= nr_d;
      // The row after the next one's beats: its low address bits against the row's bytes,
      // worked out for the two new addresses nr_d can take (picked by a register, active_q) and
      // kept otherwise (they are nr_q's partial and page beats already), so
      // the address channel's answer (fire) is only an enable: yosys shares one adder between
      // operands picked by a late select, which put fire in front of a sum.
      // With CmdReg the next row's beats too are taken in the command's first cycle, from the
      // row beats registered while idle (rb_beats_q: the same sums) by the partial count
      // registered beside them, not picked behind the sums while idle (3.02 ns on small's
      // compute DMA).
      if (!active_q) begin
        if (!CmdReg) unique case (pt_nr_cmd)
          2'd0: begin
            nb_beats_q <= c_beats0;
            nb_m1_q    <= c_m1;
          end
          2'd1: begin
            nb_beats_q <= c_beats1;
            nb_m1_q    <= c_beats0[LenW-1:0];
          end
          default: begin
            nb_beats_q <= c_beats2;
            nb_m1_q    <= c_beats1[LenW-1:0];
          end
        endcase
        if (!CmdReg) nb_over_q <= nb_over_cmd;
        pt_a_q    <= pt_a_cmd;
        nr_page_q <= pg_nr_cmd;
      end else if (fire && b_q.row_last) begin
        {nb_beats_q, nb_m1_q} <= rb_pick(pt_a_q);
        nb_over_q <= rb_over_q[pt_a_q];
        pt_a_q    <= pt_a_row;
        nr_page_q <= pg_nr_row;
      end else if (first_q) begin
        nb_over_q <= nb_over_cmd;
        {nb_beats_q, nb_m1_q} <= rb_pick(pt_nr_cmdq);
      end
      if (!active_q) begin
        // Idle: the command's fields are taken every cycle, and it starts when it is valid.
        active_q    <= cmd_valid_i;
        rows_left_q <= cmd_rows_i;
        last_row_q  <= (cmd_rows_i == RowsW'(1));
        stride_q    <= cmd_stride_i;
        rb_lo_q     <= cmd_row_bytes_i[L-1:0];
        rb_m1_q     <= LenW'(cmd_rb_hi) - 1'b1;
        for (int k = 0; k < 3; k++) begin
          rb_beats_q[k] <= BeatsW'(cmd_rb_hi) + BeatsW'(k);
          rb_over_q[k]  <= over_sum(BeatsW'(cmd_rb_hi), 2'(k));
        end
      end else if (fire && b_q.row_last) begin
        if (last_row_q) active_q <= 1'b0;
        rows_left_q <= rows_left_q - 1'b1;
        last_row_q  <= (rows_left_q == RowsW'(2));
      end
    end
  end

`ifndef SYNTHESIS
  logic [BeatsW-1:0] chk_left;
  logic [PageW-1:0]  chk_t4;
  assign chk_left = b_q.beats_left - BeatsW'(b_q.len);
  assign chk_t4   = (b_q.to_4k == PageW'(b_q.len)) ? PageW'(PageBeats)
                                                   : b_q.to_4k - PageW'(b_q.len);
  always_ff @(posedge clk_i) begin
    if (rst_ni && cmd_valid_i && !active_q)
      assert (c_over || c_lt == (PageW'(c_left[LenW-1:0]) > c_page))
      else $error("vta_burst_gen: the first burst's comparison with the page disagrees");
    if (rst_ni && PageIn && cmd_valid_i && !active_q)
      assert (cmd_page_i == pg_cmd && cmd_part_i == pt_cmd)
      else $error("vta_burst_gen: the command's page or partial beats disagree");
  end
  initial begin
    assert (MaxBeats <= PageBeats) else $error("vta_burst_gen: MaxBeats above a 4 KiB page's beats");
    assert (!SameReg || CmdReg) else $error("vta_burst_gen: SameReg needs CmdReg");
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni && SameReg && fire && !b_q.row_last)
      assert (b_sm == b_same && cur_sm == cur_same)
      else $error("vta_burst_gen: the same row's registered next burst is stale");
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni && active_q && !first_q && !b_q.row_last) begin
      assert (b_same == burst_of(chk_left, b_q.beats_left[LenW-1:0] - b_q.len - 1'b1,
                                 over_diff(b_q.beats_left, b_q.len), chk_t4,
                                 PageW'(chk_left[LenW-1:0]) > chk_t4))
      else $error("vta_burst_gen: the same row's next burst disagrees with burst_of");
    end
    if (rst_ni && cmd_valid_i && cmd_ready_o) begin
      assert (cmd_rows_i != '0 && cmd_row_bytes_i != '0)
      else $error("vta_burst_gen: empty transfer");
      assert ((cmd_row_bytes_i >> RowBytesW) == '0)
      else $error("vta_burst_gen: %0d row bytes need more than %0d bits", cmd_row_bytes_i, RowBytesW);
    end
  end
`endif
endmodule

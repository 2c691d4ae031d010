// vta_uop_fp - what the micro-op kernels in the micro-op buffer index, so that the compute module
// knows before an instruction starts which ACC entries it can touch.
//
// Each LOAD UOP that writes a contiguous range of the buffer leaves one record: the range and the
// smallest and largest dst and src field among the micro-ops it wrote (padding zeros included).
// Records never overlap: committing a load invalidates every record it overwrote (all of them
// when its writes were not contiguous). An instruction whose micro-op range [bgn, end) lies
// inside a record gets that record's bounds, which hold every micro-op it reads: a superset is
// all a hazard check needs. An instruction no record covers (its micro-ops written by several
// loads, or its record replaced) has no known footprint, and the compute module then runs it
// alone. Records are replaced oldest first; NRec is chosen above the number of kernels a layer
// of the compiler keeps resident (14 to 28 for ResNet-18 on the default configuration), so a
// layer's kernels keep their records. A JIT that loads one kernel per LOAD UOP, as ours does,
// gets one record per kernel.
module vta_uop_fp
  import vta_pkg::*;
#(
  parameter int unsigned NRec = 32
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // the micro-op loads
  input  logic                   ld_start_i,  // a LOAD UOP begins
  input  logic [LogUopDepth-1:0] ld_base_i,   // with ld_start_i: its first write's address
  input  logic                   we_i,
  input  logic [LogUopDepth-1:0] waddr_i,
  input  logic [UopBytes*8-1:0]  wdata_i,
  input  logic                   ld_done_i,   // the LOAD UOP has written its last entry
  // lookup of an instruction's micro-op range: the instruction held (bgn_i, end_i) and the one
  // taken in this cycle to be held from the next (take_i, nbgn_i, nend_i)
  input  logic [LogUopDepth-1:0] bgn_i,
  input  logic [LogUopDepth:0]   end_i,
  input  logic                   take_i,
  input  logic [LogUopDepth-1:0] nbgn_i,
  input  logic [LogUopDepth:0]   nend_i,
  // the range of the element becoming the queue's head (it is nbgn_i, nend_i from the next
  // cycle on when take_i or head_fill_i: a push into an empty queue)
  input  logic                   head_fill_i,
  input  logic [LogUopDepth-1:0] hbgn_i,
  input  logic [LogUopDepth:0]   hend_i,
  // the held instruction's bounds: hit_o says there are some; they are the record being
  // committed in this cycle (b_*_o) when bsel_o, else the selected record's (s_*_o). Both are
  // registers, so the caller can work with each beside the other and pick late.
  output logic                   hit_o,
  output logic                   bsel_o,
  output logic [UopDstW-1:0]     b_dmin_o,
  output logic [UopDstW-1:0]     b_dmax_o,
  output logic [UopSrcW-1:0]     b_smin_o,
  output logic [UopSrcW-1:0]     b_smax_o,
  output logic [UopDstW-1:0]     s_dmin_o,
  output logic [UopDstW-1:0]     s_dmax_o,
  output logic [UopSrcW-1:0]     s_smin_o,
  output logic [UopSrcW-1:0]     s_smax_o
);
  // A record's bounds: the smallest and largest dst and src field.
  typedef struct packed {
    logic [UopDstW-1:0] dmin;
    logic [UopDstW-1:0] dmax;
    logic [UopSrcW-1:0] smin;
    logic [UopSrcW-1:0] smax;
  } bnd_t;
  // Arrays of them are kept as plain vectors: yosys 0.23 selects out of range in an unpacked
  // array of a struct (it set the records' bounds to undefined).
  localparam int unsigned BndW = 2 * UopDstW + 2 * UopSrcW;  // $bits(bnd_t)
  bnd_t now_bnd;  // this cycle's bounds (the assertion's)
  localparam int unsigned AW = LogUopDepth + 1;  // addresses up to and including the depth
  localparam int unsigned PtrW = $clog2(NRec);

  logic [NRec-1:0]    valid_q;
  logic [AW-1:0]      lo_q [NRec];
  logic [AW-1:0]      hi_q [NRec];
  logic [BndW-1:0]    bnd_q [NRec];
  logic [PtrW-1:0]    ptr_q;
  logic [NRec-1:0]    ptr_oh_q;  // ptr_q, one-hot
  logic [NRec-1:0]    ovl_q;     // each record overlaps the one being built (as it stands now)

  // ---- the record being built ----
  logic               b_any_q, b_bad_q;
  logic [AW-1:0]      b_lo_q, b_hi_q;
  logic [UopDstW-1:0] b_dmin_q, b_dmax_q;
  logic [UopSrcW-1:0] b_smin_q, b_smax_q;
  bnd_t               b_bnd;
  uop_word_t          w;
  logic               commit;

  assign w      = wdata_i;
  assign commit = ld_done_i && b_any_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      b_any_q <= 1'b0;
      b_bad_q <= 1'b0;
    end else begin
      if (ld_start_i) begin
        b_any_q <= 1'b0;
        b_bad_q <= 1'b0;
      end else if (we_i) begin
        b_any_q <= 1'b1;
        // Contiguous writes only (a write past the end of the buffer wraps and is not).
        if (b_any_q && AW'(waddr_i) != b_hi_q) b_bad_q <= 1'b1;
      end
    end
  end

  // The range as a write in this cycle would leave it (b_lo_w, b_hiw_q: whether or not one
  // happens, so the write enable, late from the DMA's write sequencer, only picks). Its end
  // after the write is one register (b_hiw_q): the load's first write is at its base (ld_base_i,
  // so base + 1 is summed at the start) and each later one moves the end on by one (summed at
  // the write before), so no sum lies between the write address and the comparisons with the
  // instructions' ranges (3.62 ns on the default), nor a pick between the two sums (3.06 ns).
  // The range's start is the load's base, taken as the load starts (the first write's address:
  // checked), so it is a register before the first write as well.
  // (The two sums are kept apart, vta_cut: yosys shares one adder behind a pick of its
  // operands, which put the load's start, late from the dispatch, in front of a carry chain.)
  logic [AW-1:0] b_lo_w, b_hiw_q, base_p1_w, hi_p1_w, base_p1, hi_p1;
  assign base_p1_w = AW'(ld_base_i) + 1'b1;
  assign hi_p1_w   = b_hiw_q + 1'b1;
  vta_cut #(.W(2 * AW)) u_hi_cut (.i({base_p1_w, hi_p1_w}), .o({base_p1, hi_p1}));
  always_ff @(posedge clk_i) begin
    if (ld_start_i) begin
      b_hiw_q <= base_p1;
      b_lo_q <= AW'(ld_base_i);
    end else if (we_i) begin
      b_hiw_q <= hi_p1;
    end
  end
  assign b_lo_w = b_lo_q;

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      b_hi_q   <= b_hiw_q;
      if (!b_any_q) begin
        b_dmin_q <= w.dst;
        b_dmax_q <= w.dst;
        b_smin_q <= w.src;
        b_smax_q <= w.src;
      end else begin
        if (w.dst < b_dmin_q) b_dmin_q <= w.dst;
        if (w.dst > b_dmax_q) b_dmax_q <= w.dst;
        if (w.src < b_smin_q) b_smin_q <= w.src;
        if (w.src > b_smax_q) b_smax_q <= w.src;
      end
    end
  end

  // ---- committing: invalidate what the load overwrote, then record it ----
  logic [NRec-1:0] valid_d;
  always_comb begin
    valid_d = valid_q;
    if (commit) begin
      for (int r = 0; r < NRec; r++) begin
        if (b_bad_q || ovl_q[r]) valid_d[r] = 1'b0;
      end
      if (!b_bad_q) valid_d = valid_d | ptr_oh_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      valid_q  <= '0;
      ptr_q    <= '0;
      ptr_oh_q <= NRec'(1);
    end else begin
      valid_q <= valid_d;
      if (commit && !b_bad_q) begin
        ptr_q    <= ptr_q + 1'b1;
        ptr_oh_q <= {ptr_oh_q[NRec-2:0], ptr_oh_q[NRec-1]};
      end
    end
  end

  // The overlap of every record with the range being built, registered: it is worked out
  // against the range as the current write leaves it ([lo, hi) with hi = the written address
  // + 1 or one past the old hi), as comparisons on registers and the write address, so the
  // commit and the lookup in its cycle see a flag, not two comparisons behind an adder. The
  // flags hold between writes: a commit needs a write after the previous commit (and after the
  // load's start), so the records and the range compared are those the commit sees. (Held, not
  // recomputed every cycle, they also cost the Verilator model nothing in most cycles.)
  // op_q is ovl_q | ptr_oh_q as one register (the records a commit removes, but for b_bad_q),
  // so the selection's removal is an AND-OR of two registers per record (below).
  logic [NRec-1:0] ovl_d, op_q;
  always_comb begin
    for (int r = 0; r < NRec; r++) begin
      if (we_i && !b_any_q)
        ovl_d[r] = (lo_q[r] <= b_lo_q) && (b_lo_q < hi_q[r]);
      else if (we_i)
        ovl_d[r] = (lo_q[r] <= b_hi_q) && (b_lo_q < hi_q[r]);
      else
        ovl_d[r] = ovl_q[r];
    end
  end
  always_ff @(posedge clk_i) begin
    ovl_q <= ovl_d;
    if (!rst_ni) op_q <= ovl_d | NRec'(1);
    else if (commit && !b_bad_q) op_q <= ovl_d | {ptr_oh_q[NRec-2:0], ptr_oh_q[NRec-1]};
    else op_q <= ovl_d | ptr_oh_q;
  end

  always_ff @(posedge clk_i) begin
    if (commit && !b_bad_q) begin
      lo_q[ptr_q]   <= b_lo_q;
      hi_q[ptr_q]   <= b_hi_q;
      bnd_q[ptr_q]  <= b_bnd;
    end
  end

  // ---- lookup (records are disjoint: at most one covers a non-empty range) ----
  // In the cycle a load commits, the lookup already sees the table after it (the record being
  // written, and none it invalidates), so the instruction after a LOAD UOP, usually the first
  // run of the kernel just loaded, knows its footprint when it may start.
  //
  // The held instruction's record is selected as the instruction is taken (from the queue's
  // registered head) and kept in registers (sel_*): its bounds, whether there is one, and which
  // (sel_oh_q). As at most one record matches a non-empty range, the bounds are an OR of the
  // matching record's, not a chain of 32 priority multiplexers (an empty range has no
  // micro-ops: the caller ignores its bounds). A commit is the only change to the table: in
  // its cycle the output is the record being written if it holds the range (b_in_q), nothing
  // if the selected record is overwritten or invalidated, else the selection; and the
  // selection becomes that. So no lookup lies between the table and the caller's comparisons.
  //
  // Whether the record being built holds the instruction's range is registered (b_in_q), worked
  // out whenever either changes (a write, a take) from both as they will be, so that in the
  // commit cycle no comparison lies between D's instruction and the bounds. Both comparisons
  // are made and the take (late: the end of the dispatch) only picks one; in a commit cycle (no
  // write) b_in_taken is also the flag of the record written for the instruction being taken.
  //
  // The selection's bounds (sel_q) are worked out in the cycle after the take from the
  // registered one-hot selection, not at the take (an OR of 33 bounds behind the dispatch
  // decision, 3.4-3.85 ns): the take loads only which record (sel_oh_q) and whether there is
  // one. So in that cycle (the caller's F0) the bounds are not yet the new instruction's, and
  // the caller waits it out; after it, sel_q follows the selection (a commit that writes the
  // held instruction's record puts that record's bounds in).
  logic [NRec-1:0]    nmatch, sel_oh_q;
  logic               b_in_q, b_in_held_w, b_in_taken_w, b_in_taken, b_hit, b_nhit, sel_hit_q;
  logic               sel_gone, now_hit;
  bnd_t               sel_q;   // the selection's bounds (from the cycle after the take)
  bnd_t               sel_or;  // the OR of the selected records' bounds
  bnd_t               s_bnd;   // the selection's
  assign b_in_held_w  = b_lo_w <= AW'(bgn_i) && end_i <= b_hiw_q;
  assign b_in_taken_w = b_lo_w <= AW'(nbgn_i) && nend_i <= b_hiw_q;
  // Without a write: whether the range being built holds the queue head's, kept in a register
  // (b_in_taken) beside the head as hm_q is for the table, so that the take's lookup (sel_*, hm_q's
  // keep) reads a flag, not two comparisons of the range against the head (4.01 ns on the
  // default). It is worked out whenever either changes: from the element becoming the head
  // when one does (a take or a push into an empty queue), else from the head and the range as
  // a write leaves it.
  logic b_in_head;  // the range as it stands holds the element becoming head
  assign b_in_head = b_lo_q <= AW'(hbgn_i) && hend_i <= b_hi_q;
  // The take (late: the dispatch decision) does not pick in front of the flag: both values are
  // registered every cycle, the head's next element's against the range as a write leaves it
  // (bh_nx_q) and the held head's (bh_kp_q), and whether the head took a new element
  // (bh_sel_q) picks between them after the clock. (The write enable, late from the DMA, only
  // picks between comparisons made both ways.) For b_in_q the take picks last, vta_pick, as
  // for the selection below.
  logic bh_nx_q, bh_kp_q, bh_sel_q;
  logic bi_tk, bi_nt, bi_d;
  always_ff @(posedge clk_i) begin
    bh_nx_q <= we_i ? (b_lo_w <= AW'(hbgn_i) && hend_i <= b_hiw_q) : b_in_head;
    bh_kp_q <= we_i ? b_in_taken_w : b_in_taken;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) bh_sel_q <= 1'b0;
    else bh_sel_q <= take_i || head_fill_i;
  end
  assign b_in_taken = bh_sel_q ? bh_nx_q : bh_kp_q;
  assign bi_tk = we_i ? b_in_taken_w : b_in_taken;
  assign bi_nt = we_i ? b_in_held_w : b_in_q;
  vta_pick u_b_pick (.sel_i(take_i), .a_i(bi_tk), .b_i(bi_nt), .o_o(bi_d));
  always_ff @(posedge clk_i) begin
    b_in_q <= bi_d;
  end

  // This cycle, for the held instruction: the record being committed holds it (b_hit), or the
  // selected one survives.
  // Whether a commit removes the selected record: an AND-OR of 2 NRec registers, as kept
  // levels (vta_cut): three records per LUT, their OR in sixes, then with b_bad_q (abc had
  // mapped it as five LUT and MUXF levels in front of the take's pick, 3.03 ns on the default).
  localparam int unsigned NG1 = (NRec + 2) / 3;
  localparam int unsigned NG2 = (NG1 + 5) / 6;
  logic [3*NG1-1:0] sg_sel, sg_op;
  logic [NG1-1:0]   sg1_w, sg1;
  logic [6*NG2-1:0] sg1x;
  logic [NG2-1:0]   sg2_w, sg2;
  logic             sel_keep_w, sel_keep;  // no commit now would remove the selected record
  assign sg_sel = (3 * NG1)'(sel_oh_q);
  assign sg_op  = (3 * NG1)'(op_q);
  always_comb begin
    for (int k = 0; k < NG1; k++) sg1_w[k] = |(sg_sel[3*k +: 3] & sg_op[3*k +: 3]);
  end
  vta_cut #(.W(NG1)) u_sg1_cut (.i(sg1_w), .o(sg1));
  assign sg1x = (6 * NG2)'(sg1);
  always_comb begin
    for (int k = 0; k < NG2; k++) sg2_w[k] = |sg1x[6*k +: 6];
  end
  vta_cut #(.W(NG2)) u_sg2_cut (.i(sg2_w), .o(sg2));
  assign sel_keep_w = !b_bad_q && !(|sg2);
  vta_cut u_keep_cut (.i(sel_keep_w), .o(sel_keep));
  assign b_hit    = commit && !b_bad_q && b_in_q;
  assign sel_gone = commit && !sel_keep;
  assign now_hit  = b_hit || (sel_hit_q && !sel_gone);
  assign hit_o    = now_hit;
  assign bsel_o   = b_hit;
  assign b_bnd    = {b_dmin_q, b_dmax_q, b_smin_q, b_smax_q};  // bnd_t's field order
  assign b_dmin_o = b_dmin_q;
  assign b_dmax_o = b_dmax_q;
  assign b_smin_o = b_smin_q;
  assign b_smax_o = b_smax_q;
  assign s_bnd = sel_q;
  assign s_dmin_o = s_bnd.dmin;
  assign s_dmax_o = s_bnd.dmax;
  assign s_smin_o = s_bnd.smin;
  assign s_smax_o = s_bnd.smax;
  assign now_bnd  = b_hit ? b_bnd : s_bnd;

  // Whether each record holds the queue head's range (hm_q), worked out beside the head: for
  // every record as an element becomes the head, so the take reads flags, not 2 NRec
  // comparisons behind the head register (4.1-4.3 ns on the default).
  //
  // The record a commit writes is fixed a cycle later: in the commit cycle its flag follows
  // the record as it was (the comparison with lo_q/hi_q, or the flag kept), and the flag for
  // the record as written is registered apart (hb_q: the range being built against the element
  // becoming head, or the flag held for the head) with which record (hfix_q). The flags read
  // (hm) take hb_q for that record, so they are the table's from the cycle after the commit,
  // when lo_q/hi_q hold the record; in the commit cycle itself the lookup reads the range
  // being built (b_nhit), not the record's flag. (Picking the committed record's flag in front
  // of hm_q put an AND and a pick behind the head's comparisons: 3.02-3.21 ns.)
  logic [NRec-1:0] hm_q, hm, hfix_q;
  logic            hb_q;
  assign hm = (hm_q & ~hfix_q) | (hfix_q & {NRec{hb_q}});
  // (The take, late, picks last: with it the head always takes the next element's flags;
  // without it, only when an element is pushed into an empty queue, head_fill_i, which comes
  // from the queue's count flags and the push, not from the take as the head's load does.)
  logic [NRec-1:0] hm_nx;
  always_comb begin
    for (int r = 0; r < NRec; r++) hm_nx[r] = lo_q[r] <= AW'(hbgn_i) && hend_i <= hi_q[r];
  end
  always_ff @(posedge clk_i) begin
    if (take_i) hm_q <= hm_nx;
    else hm_q <= head_fill_i ? hm_nx : hm;
    if (take_i) hb_q <= b_in_head;
    else hb_q <= head_fill_i ? b_in_head : b_in_taken;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) hfix_q <= '0;
    else hfix_q <= (commit && !b_bad_q) ? ptr_oh_q : '0;
  end

  // For the instruction taken: the table as this cycle leaves it. Each record's match is one
  // LUT of registers, and whether any matches an OR of them in groups of six: both go through
  // kept levels (vta_cut), so the OR is two LUTs behind the matches (abc had built the whole
  // as five LUT and MUXF levels, 3.1-3.3 ns with the take's pick behind it).
  logic [NRec-1:0] nmatch_w;
  always_comb begin
    for (int r = 0; r < NRec; r++) begin
      nmatch_w[r] = valid_d[r] && !(commit && !b_bad_q && ptr_oh_q[r]) && hm[r];
    end
    b_nhit = commit && !b_bad_q && b_in_taken;
  end
  vta_cut #(.W(NRec)) u_nmatch_cut (.i(nmatch_w), .o(nmatch));
  localparam int unsigned NGrp = (NRec + 1 + 5) / 6;
  logic [NGrp*6-1:0] any_in;
  logic [NGrp-1:0]   any_w, any_g;
  assign any_in = (NGrp * 6)'({b_nhit, nmatch});
  always_comb begin
    for (int g = 0; g < NGrp; g++) any_w[g] = |any_in[6*g +: 6];
  end
  vta_cut #(.W(NGrp)) u_any_cut (.i(any_w), .o(any_g));

  // The take (late: the dispatch decision) picks last (vta_pick) between the selection for the
  // instruction taken and the one held as a commit leaves it.
  logic [NRec:0] sel_tk, sel_nt, sel_d;
  assign sel_tk = {|any_g, nmatch | (b_nhit ? ptr_oh_q : '0)};
  // (A commit that removes the selected record clears only the hit flag: the one-hot selection
  // is read only with it, and clearing it too put the removal in front of every bit.)
  assign sel_nt = commit ? {now_hit, b_hit ? ptr_oh_q : sel_oh_q} : {sel_hit_q, sel_oh_q};
  vta_pick #(.W(NRec + 1)) u_sel_pick (.sel_i(take_i), .a_i(sel_tk), .b_i(sel_nt), .o_o(sel_d));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sel_hit_q <= 1'b0;
      sel_oh_q  <= '0;
    end else begin
      {sel_hit_q, sel_oh_q} <= sel_d;
    end
  end
  // Every cycle from the selection and the table as they stand, or the record being committed
  // when that is the held instruction's (the selection and the table take it only after this
  // cycle). Any other commit leaves the selected record's bounds (a selection it removes has
  // no hit).
  always_comb begin
    sel_or = '0;
    for (int r = 0; r < NRec; r++) sel_or = sel_or | (sel_oh_q[r] ? bnd_q[r] : '0);
  end
  always_ff @(posedge clk_i) begin
    sel_q <= b_hit ? b_bnd : sel_or;
  end

`ifndef SYNTHESIS
  // The selection against a lookup of the whole table for the held instruction, in the cycles
  // after the selection or the table changed (a take, a commit) and in a commit cycle itself:
  // the only cycles in which it can disagree (checked only then, it costs the Verilator model
  // nothing in the others).
  // (bnd_too: the bounds as well as the hit; not in the cycle after a take, when sel_q is not
  // yet the new selection's.)
  function automatic logic chk_agrees(logic bnd_too);
    logic hit;
    bnd_t bnd;
    hit = commit && !b_bad_q && (b_lo_q <= AW'(bgn_i) && end_i <= b_hi_q);
    bnd = hit ? b_bnd : '0;
    for (int r = 0; r < NRec; r++) begin
      if (valid_d[r] && !(commit && !b_bad_q && ptr_oh_q[r]) &&
          lo_q[r] <= AW'(bgn_i) && end_i <= hi_q[r]) begin
        hit = 1'b1;
        bnd = bnd | bnd_q[r];
      end
    end
    chk_agrees = (now_hit == hit) && (!hit || !bnd_too || now_bnd == bnd);
  endfunction
  // an instruction has been taken; a take or commit last cycle; a take last cycle, the one
  // before
  logic chk_live_q, chk_now_q, chk_take_q, chk_take2_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      chk_live_q  <= 1'b0;
      chk_now_q   <= 1'b0;
      chk_take_q  <= 1'b0;
      chk_take2_q <= 1'b0;
    end else begin
      if (take_i) chk_live_q <= 1'b1;
      chk_now_q   <= take_i || commit;
      chk_take_q  <= take_i;
      chk_take2_q <= chk_take_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni && chk_live_q && (chk_now_q || chk_take2_q || commit) && AW'(bgn_i) < end_i) begin
      assert (chk_agrees(!chk_take_q))
      else $error("vta_uop_fp: the selected record disagrees with the table (hit %0d)", now_hit);
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(we_i && ld_done_i)) else $error("vta_uop_fp: micro-op write in the commit cycle");
      for (int r = 0; r < NRec; r++) begin
        assert (!take_i || hm[r] == (lo_q[r] <= AW'(nbgn_i) && nend_i <= hi_q[r]))
        else $error("vta_uop_fp: the head's match flag of record %0d disagrees", r);
      end
      assert (!(we_i && ld_start_i)) else $error("vta_uop_fp: micro-op write before the load");
      assert (op_q == (ovl_q | ptr_oh_q)) else $error("vta_uop_fp: op_q disagrees");
      assert (!(we_i && !b_any_q) ||
              (b_hiw_q == AW'(waddr_i) + 1'b1 && b_lo_q == AW'(waddr_i)))
      else $error("vta_uop_fp: a load's first write is not at its base");
      assert (!(we_i && b_any_q) || b_hiw_q == b_hi_q + 1'b1)
      else $error("vta_uop_fp: the range's end plus one disagrees");
      // (Before the load's first write the range is not yet one, and the flag is not read.)
      assert (!take_i || !b_any_q || b_in_taken == (b_lo_q <= AW'(nbgn_i) && nend_i <= b_hi_q))
      else $error("vta_uop_fp: the range's match flag for the head disagrees");
      assert (!commit || b_in_q == (b_lo_q <= AW'(bgn_i) && end_i <= b_hi_q))
      else $error("vta_uop_fp: the registered range check disagrees with the range");
    end
  end
`endif
endmodule

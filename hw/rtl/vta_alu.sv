// vta_alu - the vector ALU: one operation over the BATCH*BLOCK_OUT lanes of an ACC element, in
// three stages (docs/hw.md, "Compute pipeline"):
//   C2a: every operation but MUL, and a micro-op with the reset flag (zero), into pre_o (for
//        SHRCLIP its shift); the product's three 16 x 16-bit parts into the DSP slices' M
//        registers; SHRCLIP's bounds (and whether the lower is below the upper) into registers;
//   C2b: SHRCLIP's clip of pre_o, or pre_o, into mid_o; the parts into the slices' P registers;
//   C2c: the parts' sum (MUL without reset), or mid_o, into res_o, which the compute module
//        writes to ACC and OUT in the next cycle (C4).
// The operands arrive registered (the compute module's stage O, vta_alu_fwd), so C2a's
// operations start at flip-flops, and every stage starts at flip-flops or the slices' P
// registers. A result is ready after C2a (pre_o), which O takes for a dependent micro-op two
// cycles behind; a clip after C2b (mid_o), three behind; a product after C2c (res_o), four
// behind; the ALU's sequencer keeps dependent micro-ops out of the nearer distances (a stall).
//
// MIN and MAX compare signed values, ADD and MUL wrap to AccWidth bits. SHR takes its amount
// from the sign-extended low LogAccWidth+1 bits of the operand: a non-negative amount shifts
// right arithmetically, a negative one shifts left by its magnitude, and shifting every bit out
// gives zero (ISA.md section 3, as the functional simulator does). SHRCLIP (ours) shifts as SHR,
// then clips to [the immediate, the operand's upper 16 bits], both signed: min(max(.,lo),hi),
// so hi wins when lo > hi. The second operand is either
// the lanes of a second ACC element or the immediate, sign-extended into every lane; the
// compute module selects it in O (with the operand forwarding).
// The registers load only for valid writing micro-ops (en2_i in C2a, en3_i in C2b, en4_i in
// C2c), so pre_o, mid_o and res_o keep the unit's last result of each stage for the forwarding.
module vta_alu
  import vta_pkg::*;
(
  input  logic                         clk_i,
  // C2a
  input  logic                         en2_i,
  input  logic [AluAluOpcodeW-1:0]     op_i,
  input  logic                         reset_i,
  input  logic [3:0]                   kind_i, // {ADD, MIN/MAX, MAX, use_o}, registered (below)
  input  logic [AluImmW-1:0]           imm_i,  // SHRCLIP's lower bound
  input  logic [AccLanes*AccWidth-1:0] dst_i,  // registered in O
  input  logic [AccLanes*AccWidth-1:0] src_i,
  output logic [AccLanes*AccWidth-1:0] pre_o,
  // C2b
  input  logic                         en3_i,
  output logic [AccLanes*AccWidth-1:0] mid_o,
  // C2c
  input  logic                         en4_i,
  output logic [AccLanes*AccWidth-1:0] res_o
);
  localparam int unsigned ShW = LogAccWidth + 1;
  localparam int unsigned AccW = AccLanes * AccWidth;

  localparam int unsigned HW = AccWidth / 2;
  logic [AccW-1:0]        pre, clip, mid_q, prod, res_q, m0_q, p0_q;
  logic [AccLanes*HW-1:0] m1_q, m2_q, p1_q, p2_q;
  logic                   mul_q, clip_q, mul2_q;
  // SHRCLIP's bounds: the lower (the immediate) once, the upper per lane, and per lane whether
  // the lower is below the upper (worked out in C2a, beside the shift).
  logic [AluImmW-1:0]     lo_q;
  logic [AccLanes*HW-1:0] hi_q;
  logic [AccLanes-1:0]    lolt_q;

  // C2a's result is kept as two registers and picked at C2b's start by the registered
  // operation: o, the shift (SHR, SHRCLIP) or the destination passed through (MUL: its product
  // comes from C2b), and p1, one LUT behind the two carry chains (ADD's sum and MIN/MAX's
  // comparison a < b; MIN takes a when a < b, MAX when not: on a tie a and b are equal) or a
  // reset micro-op's zero:
  //   pre = use_o ? o : p1,  p1 = reset ? 0 : add ? sum : ((lt ^ max) ? a : b)
  // (The pick in C2a, a kept LUT3 behind p1's LUT, was 3.06-3.23 ns; in front of C2b's
  // comparisons and of O's forwarding multiplexer it starts at flip-flops.) The operation's
  // kind comes registered from the compute module (kind_i).
  logic minmax, is_max, is_add, use_o;
  assign {is_add, minmax, is_max, use_o} = kind_i;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (en2_i)
      assert (is_add == ((op_i == AluAdd) && !reset_i) &&
              minmax == (((op_i == AluMin) || (op_i == AluMax)) && !reset_i) &&
              is_max == (op_i == AluMax) &&
              use_o == (!reset_i && op_i != AluAdd && op_i != AluMin && op_i != AluMax))
      else $error("vta_alu: the registered kind disagrees with the operation");
    assert (!clip_q || use_o_q) else $error("vta_alu: a SHRCLIP's result is not its shift");
  end
`endif
  logic [AccW-1:0] o_w, p1_w, o_q, pa_q;
  logic            use_o_q;

  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      logic signed [AccWidth-1:0] a, b, o, sum;
      logic signed [ShW-1:0] sh;
      logic [ShW-2:0] shl_m1;
      logic lt;
      a = dst_i[l*AccWidth+:AccWidth];
      b = src_i[l*AccWidth+:AccWidth];
      sh = b[ShW-1:0];
      shl_m1 = ~sh[ShW-2:0];
      sum = a + b;
      lt = (a < b);
      // A negative amount shifts left by -sh = ~sh + 1: a << 1, then by ~sh's low bits (no
      // negation's carry chain in front of the shifter).
      if ((op_i == AluShr) || (op_i == AluShrclip)) begin
        if (!sh[ShW-1]) o = a >>> sh[ShW-2:0];
        else o = (a << 1) << shl_m1;
      end else begin
        o = a;  // MUL: its product comes from C2b
      end
      o_w[l*AccWidth+:AccWidth]  = o;
      p1_w[l*AccWidth+:AccWidth] = reset_i ? '0 : (is_add ? sum : ((lt ^ is_max) ? a : b));
    end
  end
  assign pre = use_o_q ? o_q : pa_q;

  // The product's three 16 x 16-bit parts, one DSP slice each, registered at the end of C2a
  // (the slices' M registers) and of C2b (their P registers): the low 32 bits of a * b are
  // al * bl + ((ah * bl + al * bh) mod 2^16) * 2^16.
  always_ff @(posedge clk_i) begin
    if (en2_i) begin
      o_q     <= o_w;
      pa_q    <= p1_w;
      use_o_q <= use_o;
      mul_q <= (op_i == AluMul) && !reset_i;
      clip_q <= (op_i == AluShrclip) && !reset_i;
      lo_q <= imm_i;
      for (int l = 0; l < AccLanes; l++) begin
        logic [HW-1:0] al, ah, bl, bh;
        {ah, al} = dst_i[l*AccWidth+:AccWidth];
        {bh, bl} = src_i[l*AccWidth+:AccWidth];
        m0_q[l*AccWidth+:AccWidth] <= AccWidth'(al) * AccWidth'(bl);
        m1_q[l*HW+:HW] <= HW'(ah * bl);
        m2_q[l*HW+:HW] <= HW'(al * bh);
        hi_q[l*HW+:HW] <= bh;
        lolt_q[l] <= $signed(imm_i) < $signed(bh);
      end
    end
  end

  // C2b: SHRCLIP's clip of pre against both bounds at once, min(max(p, lo), hi) =
  // p > lo ? (p < hi ? p : hi) : (lo < hi ? lo : hi); another operation's pre passes as if
  // both comparisons held (one LUT per bit behind the two carry chains). A SHRCLIP's pre is
  // its shift, o_q, which the comparisons read (behind pre's pick they were 2.96 ns).
  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      logic signed [AccWidth-1:0] p, po, cl, ch;
      logic gt, lt;
      p  = pre[l*AccWidth+:AccWidth];
      po = o_q[l*AccWidth+:AccWidth];
      cl = AccWidth'($signed(lo_q));
      ch = AccWidth'($signed(hi_q[l*HW+:HW]));
      gt = !clip_q || (po > cl);
      lt = !clip_q || (po < ch);
      if (gt) clip[l*AccWidth+:AccWidth] = lt ? p : ch;
      else clip[l*AccWidth+:AccWidth] = lolt_q[l] ? cl : ch;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en3_i) begin
      mid_q  <= clip;
      mul2_q <= mul_q;
      p0_q   <= m0_q;
      p1_q   <= m1_q;
      p2_q   <= m2_q;
    end
  end

  // C2c: the sum, with the choice of mid_q (not a product) folded into its operands, so that
  // the adders read multiplexers, not the slices' outputs (synthesis would otherwise chain the
  // sum through the slices' post-adders and cascade ports).
  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      logic [AccWidth-1:0] lo;
      logic [HW-1:0]       m1, m2, hs;
      logic [HW-2:0]       hc;  // the carries out of bits 0 .. HW-2 (the top's: none)
      lo = mul2_q ? p0_q[l*AccWidth+:AccWidth] : mid_q[l*AccWidth+:AccWidth];
      m1 = mul2_q ? p1_q[l*HW+:HW] : '0;
      m2 = mul2_q ? p2_q[l*HW+:HW] : '0;
      // The high half, lo's + m1 + m2, as one carry chain behind a row of 3:2 compressors.
      hs = lo[AccWidth-1:HW] ^ m1 ^ m2;
      hc = (lo[AccWidth-2:HW] & m1[HW-2:0]) | (lo[AccWidth-2:HW] & m2[HW-2:0]) |
           (m1[HW-2:0] & m2[HW-2:0]);
      prod[l*AccWidth+:AccWidth] = {hs + {hc, 1'b0}, lo[HW-1:0]};
    end
  end

  always_ff @(posedge clk_i) begin
    if (en4_i) res_q <= prod;
  end

  assign pre_o = pre;
  assign mid_o = mid_q;
  assign res_o = res_q;
endmodule

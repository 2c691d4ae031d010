// vta_compute - the compute module: micro-op, ACC and ACC_8BIT loads, GEMM, ALU and FINISH.
//
// A GEMM unit and an ALU, each with its own micro-op sequencer (vta_uop_seq), run one GEMM and
// one ALU instruction at the same time when the two cannot interfere; each issues one micro-op
// per cycle through a pipeline without stalls (docs/hw.md, "Compute pipeline", has the table):
//   C0 issue:  the sequencer walks the loop nest and reads its copy of the micro-op buffer;
//   U1, U2:    the micro-op comes out of the buffer (output register) and the loop offsets are
//              added to its indices, registered in
//   X:         (ComputeC1 - 4 cycles before C1) the GEMM unit reads INP and WGT; the dot
//              products go through vta_gemm's multipliers and adder tree, while each unit's
//              control (indices, flags, ALU tag) waits in a delay line (vta_delay);
//   C1:        ACC is read (ComputeC1 cycles after C0; the ALU's two cycles earlier);
//   C2 result: GEMM accumulate (ACC + dot product), written to ACC and the narrowed OUT
//              element in C3; the ALU registers its operands in O (vta_alu_fwd, between R and
//              C2a), takes three stages (C2a, C2b, C2c: vta_alu) and writes in C4.
//
// Instructions are decoded in program order from a one-entry decode register (D). An
// instruction's footprint, the range of ACC indices its destinations can take (and of its
// vector operand, for an ALU), is worked out in D over the three cycles after it arrives
// (vta_footprint; a GEMM or ALU instruction leaves D only then), from the bounds of its
// micro-ops (vta_uop_fp records them per LOAD UOP) and its loop extents and factors. ACC and OUT are banked by the index MSB. A
// GEMM or ALU instruction starts when its unit is free (or issuing its last micro-op) and the
// other unit is idle, issuing its last micro-op, or running an instruction it cannot interfere
// with: both footprints known, destinations in different banks, and neither's destinations
// meet the other's vector operand. So the two units never
// use the same bank's ACC read port (copy a) or write port in one cycle; the ALU's vector
// operand is read from copy b of whichever bank holds it, which the GEMM unit never reads.
// The compiler alternates its two virtual threads between the banks, so the epilogue of one
// output tile (ALU) runs while the next tile's GEMMs do.
//
// Dependency pops happen when an instruction leaves D. Pushes retire in program order: every
// GEMM and ALU instruction (and every LOAD that moves nothing, which the JIT uses as a
// compute no-op) enters a retire queue when it starts and leaves it, firing its pushes, once it
// and everything before it have completed; so a consumer never sees a token of an instruction
// before an earlier one has finished. A micro-op reads ACC (C1) before the three micro-ops of
// its unit ahead of it have written (C3; six for the ALU, which reads two cycles earlier and
// writes in C4); the unit keeps their results and forwards them (a GEMM reduction loop
// accumulates into one element every cycle). The ALU's operands are registered in O, before
// the micro-op just ahead has a result, so the ALU's sequencer holds a micro-op that reads
// the destination of the one just ahead of it (a stall of its front, C0 to X), one that reads
// a clip's (ready a stage later) until it is three cycles behind, and one that reads a
// product's (two stages later) until it is four behind. An instruction that may touch the
// other unit's elements starts five cycles after the GEMM unit's last micro-op issued, four
// after the ALU's (stall cycles not counted), so it reads that unit's writes from ACC itself. A LOAD UOP starts while the units run
// instructions whose micro-ops it does not overwrite (the JIT puts new kernels beside the
// resident ones), so fetching a kernel overlaps the instructions before it; it completes
// through the retire queue. A LOAD ACC or ACC_8BIT without pads inside one bank starts beside a
// GEMM writing the other bank once the ALU is idle, and completes through the retire queue too
// (can_ald); other ACC loads (they write ACC through the units' write ports) and FINISH wait
// for both units to drain and the retire queue to empty. Every instruction after a LOAD waits
// for it to finish.
module vta_compute
  import vta_pkg::*;
(
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // command queue
  input  logic                            cmd_valid_i,
  output logic                            cmd_ready_o,
  input  logic [InsnBytes*8-1:0]          cmd_data_i,
  // the queue's head register takes cmd_next_i at the end of a cycle with cmd_next_load_i
  input  logic                            cmd_next_load_i,
  input  logic                            cmd_next_fill_i,   // ... without a pop
  input  logic [InsnBytes*8-1:0]          cmd_next_i,
  // tokens
  input  logic                            tok_from_load_i,
  output logic                            tok_pop_load_o,
  input  logic                            tok_from_store_i,
  output logic                            tok_pop_store_o,
  output logic                            tok_push_load_o,   // compute->load
  output logic                            tok_push_store_o,  // compute->store
  // AXI read client (micro-op and ACC loads)
  output logic                            ar_valid_o,
  input  logic                            ar_ready_i,
  output logic [AxiAddrWidth-1:0]         ar_addr_o,
  output logic [7:0]                      ar_len_o,
  input  logic                            r_valid_i,
  output logic                            r_ready_o,
  input  logic [BusWidth-1:0]             r_data_i,
  // INP and WGT buffer read ports
  output logic                            inp_re_o,
  output logic [LogInpDepth-1:0]          inp_raddr_o,
  input  logic [InpElemBytes*8-1:0]       inp_rdata_i,
  output logic                            wgt_re_o,
  output logic [LogWgtDepth-1:0]          wgt_raddr_o,
  input  logic [WgtElemBytes*8-1:0]       wgt_rdata_i,
  // OUT buffer write ports: the GEMM unit's and the ALU's (never the same bank in one cycle)
  output logic                            out_g_we_o,
  output logic [LogOutDepth-1:0]          out_g_waddr_o,
  output logic [OutElemBytes*8-1:0]       out_g_wdata_o,
  output logic                            out_a_we_o,
  output logic [LogOutDepth-1:0]          out_a_waddr_o,
  output logic [OutElemBytes*8-1:0]       out_a_wdata_o,
  // status
  output logic                            finish_o,          // FINISH executed (pulse)
  output logic                            busy_o,
  output logic                            pending_o,         // an instruction waits in D
  output logic                            stall_o,
  output logic                            insn_done_o,
  output logic                            gemm_uop_o,
  output logic                            mac_uop_o,         // a GEMM micro-op without reset
  output logic                            alu_uop_o,
  output logic                            dual_o             // GEMM and ALU both wrote
);
  localparam int unsigned AccW = AccLanes * AccWidth;
  localparam int unsigned DstW = UopDstW;
  localparam int unsigned SrcW = UopSrcW;
  localparam int unsigned WgtIdxW = UopWgtW;
  localparam int unsigned UopIdxW = GemmUopEndW;
  localparam int unsigned BankW = LogAccDepth - 1;  // index bits within an ACC bank
  localparam int unsigned AldW = BankW + 1;  // an ACC load's sizes above a bank cannot fit
  localparam int unsigned AluTagW = 2 + AluAluOpcodeW + AluImmW;  // reset, use_imm, op, imm
  // In flight at once: up to three instructions per unit (C0, C1, C2) and compute no-ops.
  localparam int unsigned RqDepth = 8;
  localparam int unsigned RqW = $clog2(RqDepth);

  // ---- D: the decode register ----
  logic                   d_valid_q, d_fire, d_take;
  logic                   dp_fire, dp_rdy, dp_take;  // the dispatch decision's level 3 (below)
  logic [InsnBytes*8-1:0] d_q;
  memory_insn_t hm;
  gemm_insn_t   hg;
  alu_insn_t    ha;
  logic is_gemm, is_alu, is_finish, known_load, load_empty, tokens_ok, zero_uops;
  // Worked out as an instruction reaches the queue's head (from the value the head register
  // takes, beside it), so that the take and D's dispatch compare registers instead of sums: the
  // LOAD's rows (its pads included) are none or one, and where a one-row LOAD UOP's writes end.
  /* verilator lint_off UNUSEDSIGNAL */
  memory_insn_t cm;  // the head as a LOAD; only the fields below are read
  memory_insn_t nm;  // the element becoming the head
  /* verilator lint_on UNUSEDSIGNAL */
  logic         y_none_q, y_one_q, c_y_none_q, c_y_one_q;
  // Where a one-row LOAD UOP's writes end, sram_base + x_pad_0 + x_size + x_pad_1, kept as two
  // sums (base and size, the pads), each of two terms: the four-term sum behind the queue's
  // bypass multiplexer took 3.25 ns on the default. Its comparisons (uld_clear) add them.
  logic [17:0]  c_bs_q, c_pp_q;
  // A GEMM's or ALU's loops (the layout is shared up to iter_in): one micro-op, one inner and
  // one outer iteration, the same with two, and none at all, for the sequencers' last flags as an instruction
  // starts (the subtraction and comparisons of D's fields in front of them, behind the start,
  // were 3.20 ns on block8) and the dispatch's no-op.
  /* verilator lint_off UNUSEDSIGNAL */
  gemm_insn_t   cg, ng;  // the head and the element becoming the head as a GEMM
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]   c_shape_q, d_shape_q;  // vta_uop_seq's shape_i
  logic         c_zero_q, d_zero_q;
  // A LOAD's rows x columns (in the bits an ACC load beside a GEMM can have), for its fit (the
  // product in D's first cycle behind D's own register, which synthesis took into the DSP
  // slice's input registers, and the sum behind it were 3.21 ns on block8).
  logic [2*AldW-1:0] c_prod_q, d_prod_q;
  // x + y == z without a carry chain: bit i of the sum is x ^ y ^ (the carry into i), and with
  // the sum equal to z the carry out of bit i - 1 is (x & y) | ((x ^ y) & ~z) there; so the test
  // is one LUT per bit and an AND (uop_end - uop_bgn == 1 behind a subtraction and a comparison
  // was 3.06 ns on the default).
  function automatic logic sum_eq(logic [UopIdxW-1:0] x, logic [UopIdxW-1:0] y,
                                  logic [UopIdxW-1:0] z);
    logic [UopIdxW-1:0] cy;
    cy = {((x[UopIdxW-2:0] & y[UopIdxW-2:0]) | ((x[UopIdxW-2:0] ^ y[UopIdxW-2:0]) &
                                                ~z[UopIdxW-2:0])), 1'b0};
    sum_eq = ((x ^ y ^ cy) == z);
  endfunction

  // (From the dispatch decision's terms, below: !d_valid_q || d_fire, and with the queue's
  // valid.)
  assign cmd_ready_o = dp_rdy;
  assign d_take      = dp_take;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) d_valid_q <= 1'b0;
    else if (d_take) d_valid_q <= 1'b1;
    else if (d_fire) d_valid_q <= 1'b0;
  end
  assign cm        = cmd_data_i;
  assign nm        = cmd_next_i;
  assign cg        = cmd_data_i;
  assign ng        = cmd_next_i;
  // (The rows' sum is none or one without the sum: none when every term is zero, one when one
  // term is one and the others zero.)
  logic n_p0_0, n_sz_0, n_p1_0;
  assign n_p0_0 = (nm.y_pad_0 == '0);
  assign n_sz_0 = (nm.y_size == '0);
  assign n_p1_0 = (nm.y_pad_1 == '0);
  always_ff @(posedge clk_i) begin
    if (cmd_next_load_i) begin
      c_y_none_q  <= n_p0_0 && n_sz_0 && n_p1_0;
      c_y_one_q   <= (nm.y_pad_0 == 1 && n_sz_0 && n_p1_0) ||
                     (n_p0_0 && nm.y_size == 1 && n_p1_0) ||
                     (n_p0_0 && n_sz_0 && nm.y_pad_1 == 1);
      c_bs_q      <= 18'(nm.sram_base) + 18'(nm.x_size);
      c_pp_q      <= 18'(nm.x_pad_0) + 18'(nm.x_pad_1);
      c_prod_q    <= (2*AldW)'(AldW'(nm.y_size)) * (2*AldW)'(AldW'(nm.x_size));
      c_shape_q   <= {sum_eq(UopIdxW'(ng.uop_bgn), UopIdxW'(1), ng.uop_end),
                      ng.iter_in == GemmIterOutW'(1), ng.iter_out == GemmIterOutW'(1),
                      sum_eq(UopIdxW'(ng.uop_bgn), UopIdxW'(2), ng.uop_end),
                      ng.iter_in == GemmIterOutW'(2), ng.iter_out == GemmIterOutW'(2)};
      c_zero_q    <= (ng.uop_end <= UopIdxW'(ng.uop_bgn)) || (ng.iter_out == '0) ||
                     (ng.iter_in == '0);
    end
  end
  always_ff @(posedge clk_i) begin
    if (d_take) begin
      d_q       <= cmd_data_i;
      y_none_q  <= c_y_none_q;
      y_one_q   <= c_y_one_q;
      d_shape_q <= c_shape_q;
      d_zero_q  <= c_zero_q;
      d_prod_q  <= c_prod_q;
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && cmd_valid_i) begin
      assert (c_bs_q == 18'(cm.sram_base) + 18'(cm.x_size) &&
              c_pp_q == 18'(cm.x_pad_0) + 18'(cm.x_pad_1) &&
              c_y_one_q == (17'(cm.y_pad_0) + 17'(cm.y_size) + 17'(cm.y_pad_1) == 17'd1) &&
              c_y_none_q == (17'(cm.y_pad_0) + 17'(cm.y_size) + 17'(cm.y_pad_1) == '0) &&
              c_shape_q == {int'(cg.uop_end) - int'(cg.uop_bgn) == 1, cg.iter_in == 1,
                            cg.iter_out == 1, int'(cg.uop_end) - int'(cg.uop_bgn) == 2,
                            cg.iter_in == 2, cg.iter_out == 2} &&
              c_prod_q == (2*AldW)'(AldW'(cm.y_size)) * (2*AldW)'(AldW'(cm.x_size)) &&
              c_zero_q == (int'(cg.uop_end) <= int'(cg.uop_bgn) || cg.iter_out == 0 ||
                           cg.iter_in == 0))
      else $error("vta_compute: the registers beside the queue's head disagree with it");
    end
  end
`endif

  assign hm = d_q;
  assign hg = d_q;
  assign ha = d_q;
  // D's kind, decoded as the instruction is taken (from the queue's head register and the flags
  // beside it) and registered with it, so that dispatch starts at a flip-flop per kind, not at
  // the opcode and memory-type comparisons of d_q: a GEMM, an ALU, a LOAD into UOP or ACC
  // (known), one that moves nothing (empty: ISA.md, a sync no-op whatever the pads say; the DMA
  // agrees), a LOAD UOP or ACC that moves something, FINISH, and everything else (mem).
  logic dk_gemm_q, dk_alu_q, dk_load_q, dk_empty_q, dk_uld_q, dk_ald_q, dk_finish_q, dk_mem_q;
  logic c_gemm, c_alu, c_mt_uop, c_mt_acc, c_load, c_empty, c_uld, c_ald;
  assign c_gemm   = (cm.opcode == OpGemm);
  assign c_alu    = (cm.opcode == OpAlu);
  assign c_mt_uop = (cm.memory_type == MemUop);
  assign c_mt_acc = (cm.memory_type == MemAcc || cm.memory_type == MemAcc8bit);
  assign c_load   = (cm.opcode == OpLoad) && (c_mt_uop || c_mt_acc);
  assign c_empty  = (cm.x_size == '0) || c_y_none_q;
  assign c_uld    = c_load && !c_empty && c_mt_uop;
  assign c_ald    = c_load && !c_empty && c_mt_acc;
  always_ff @(posedge clk_i) begin
    if (d_take) begin
      dk_gemm_q   <= c_gemm;
      dk_alu_q    <= c_alu;
      dk_load_q   <= c_load;
      dk_empty_q  <= c_empty;
      dk_uld_q    <= c_uld;
      dk_ald_q    <= c_ald;
      dk_finish_q <= (cm.opcode == OpFinish);
      dk_mem_q    <= !(c_gemm || c_alu) && !(c_load && c_empty) && !c_uld;
    end
  end
  assign is_gemm    = d_valid_q && dk_gemm_q;
  assign is_alu     = d_valid_q && dk_alu_q;
  assign is_finish  = d_valid_q && dk_finish_q;
  assign known_load = d_valid_q && dk_load_q;
  assign load_empty = dk_empty_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && d_valid_q) begin
      assert (dk_gemm_q == (hm.opcode == OpGemm) && dk_alu_q == (hm.opcode == OpAlu) &&
              dk_finish_q == (hm.opcode == OpFinish) &&
              dk_load_q == (hm.opcode == OpLoad && (hm.memory_type == MemUop ||
                                                    hm.memory_type == MemAcc ||
                                                    hm.memory_type == MemAcc8bit)) &&
              dk_empty_q == ((hm.x_size == '0) || y_none_q) &&
              dk_uld_q == (dk_load_q && !dk_empty_q && hm.memory_type == MemUop) &&
              dk_ald_q == (dk_load_q && !dk_empty_q && hm.memory_type != MemUop))
      else $error("vta_compute: D's registered kind disagrees with its instruction");
    end
  end
`endif
  assign tokens_ok  = (!hm.pop_prev || tok_from_load_i) && (!hm.pop_next || tok_from_store_i);
  // GEMM and ALU share the layout of every field up to iter_in (ISA.md section 2).
  assign zero_uops  = d_zero_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && d_valid_q)
      // (d_shape_q is checked by the sequencers at each start.)
      assert (d_zero_q == ((hg.uop_end <= UopIdxW'(hg.uop_bgn)) || (hg.iter_out == '0) ||
                           (hg.iter_in == '0)))
      else $error("vta_compute: D's no-micro-op flag disagrees with its instruction");
  end
`endif

  // ---- micro-op buffer and the compute-side loads ----
  logic uop_we, acc_ld_we, l2d_busy, l2d_done, l2d_waiting, ld_start, loading_q;
  logic [LogUopDepth-1:0] uop_waddr;
  logic [UopBytes*8-1:0]  uop_wdata;
  memory_insn_t ld_q;
  logic beat_valid, beat_ready, elem_valid, elem_want, wr_valid, wr_is_elem;
  logic [LogBusBytes-1:0] beat_lo, beat_hi;
  logic [MemorySramBaseW-1:0] wr_addr;
  logic [AccW-1:0] ld_acc_data;
  logic ld_is_uop, ld_is_acc, ld_is_a8;

  // The element size of D's LOAD and its transfer in bytes (base, stride, row), worked out as
  // it is taken: the DMA's first burst is computed from them in the cycle the load starts, and
  // a variable shift in front of that computation was the design's longest path.
  logic [3:0]              c_log_elem;
  logic [AxiAddrWidth-1:0] ld_base_q, ld_stride_q, ld_rbytes_q, c_ld_base;
  localparam int unsigned PageW = $clog2((4096 >> LogBusBytes) + 1);
  logic [PageW-1:0]        ld_page_q;  // ld_base_q's beats to the 4 KiB boundary
  logic [1:0]              ld_part_q;  // its rows' partial beats
  logic [AxiAddrWidth-1:0] c_ld_rbytes;
  always_comb begin
    c_log_elem = 4'(LogUopElemBytes);
    if (cm.memory_type == MemAcc) c_log_elem = 4'(LogAccElemBytes);
    if (cm.memory_type == MemAcc8bit) c_log_elem = 4'(LogAcc8bitElemBytes);
  end
  assign c_ld_base = AxiAddrWidth'(cm.dram_base) << c_log_elem;
  assign c_ld_rbytes = AxiAddrWidth'(cm.x_size) << c_log_elem;
  vta_burst_start #(.LogBusBytes(LogBusBytes)) u_ld_start (
    .clk_i, .en_i(d_take), .addr_lo_i(c_ld_base[11:0]),
    .bytes_lo_i(c_ld_rbytes[LogBusBytes-1:0]), .page_o(ld_page_q), .part_o(ld_part_q)
  );
  // Taken with the instruction through a kept pick by the take (enabled by it, synthesis put
  // the late take on their reset pins, 3.13 ns on the default; held in registers of their own
  // and picked after them, the DMA's address sums behind the pick were 3.61-3.67 ns).
  logic [3*AxiAddrWidth-1:0] ld_new, ld_d;
  assign ld_new = {c_ld_base, AxiAddrWidth'(cm.x_stride) << c_log_elem, c_ld_rbytes};
  vta_pick #(.W(3 * AxiAddrWidth)) u_ld_pick (
    .sel_i(d_take), .a_i(ld_new), .b_i({ld_base_q, ld_stride_q, ld_rbytes_q}), .o_o(ld_d)
  );
  always_ff @(posedge clk_i) {ld_base_q, ld_stride_q, ld_rbytes_q} <= ld_d;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    logic [3:0] le;
    le = 4'(LogUopElemBytes);
    if (hm.memory_type == MemAcc) le = 4'(LogAccElemBytes);
    if (hm.memory_type == MemAcc8bit) le = 4'(LogAcc8bitElemBytes);
    if (rst_ni && d_valid_q)
      assert (ld_base_q == AxiAddrWidth'(hm.dram_base) << le &&
              ld_stride_q == AxiAddrWidth'(hm.x_stride) << le &&
              ld_rbytes_q == AxiAddrWidth'(hm.x_size) << le)
      else $error("vta_compute: the load's byte fields disagree with D's instruction");
  end
`endif
  // The load's memory type decoded as it starts (beside ld_q), so the micro-op record's commit
  // and the gearboxes' selects read flip-flops.
  always_ff @(posedge clk_i) begin
    if (ld_start) begin
      ld_is_uop <= (hm.memory_type == MemUop);
      ld_is_acc <= (hm.memory_type == MemAcc);
      ld_is_a8  <= (hm.memory_type == MemAcc8bit);
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && loading_q)
      assert (ld_is_uop == (ld_q.memory_type == MemUop) &&
              ld_is_acc == (ld_q.memory_type == MemAcc) &&
              ld_is_a8 == (ld_q.memory_type == MemAcc8bit))
      else $error("vta_compute: the load's decoded memory type disagrees with ld_q");
  end
`endif

  // One load at a time (a LOAD waits for the units to drain and the next instruction for the
  // load), so the DMA needs no queue and its instruction is ld_q throughout. Its first burst is
  // worked out from registers (CmdReg: a cycle per load; ResNet-18: 317 cycles in 7.2 million
  // by the SystemC model).
  // The next load starts after the last one's writes (loading_q), so the beat walker takes
  // its command only when idle (IdleTake).
  localparam int unsigned LdLe0 = (LogUopElemBytes > LogAccElemBytes) ? LogUopElemBytes
                                                                      : LogAccElemBytes;
  vta_load_2d #(
    .Depth     (1),
    .CmdReg    (1'b1),
    .IdleTake  (1'b1),
    .LogElemMax((LdLe0 > LogAcc8bitElemBytes) ? LdLe0 : LogAcc8bitElemBytes)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i         (ld_start),
    .ready_o         (),
    .insn_i          (hm),
    .base_i          (ld_base_q),
    .page_i          (ld_page_q),
    .part_i          (ld_part_q),
    .stride_i        (ld_stride_q),
    .row_bytes_i     (ld_rbytes_q),
    .busy_o          (l2d_busy),
    .done_o          (l2d_done),
    .done_insn_o     (),
    .waiting_o       (l2d_waiting),
    .ar_valid_o,
    .ar_ready_i,
    .ar_addr_o,
    .ar_len_o,
    .r_valid_i,
    .r_ready_o,
    .beat_valid_o    (beat_valid),
    .beat_ready_i    (beat_ready),
    .beat_lo_o       (beat_lo),
    .beat_hi_o       (beat_hi),
    .beat_type_o     (),
    .elem_valid_i    (elem_valid),
    .elem_want_o     (elem_want),
    .wr_valid_o      (wr_valid),
    .wr_addr_o       (wr_addr),
    .wr_is_elem_o    (wr_is_elem),
    .wr_insn_o       ()
  );

  vta_ld_elems u_ld_elems (
    .clk_i,
    .rst_ni,
    .ld_is_uop_i (ld_is_uop),
    .ld_is_acc_i (ld_is_acc),
    .ld_is_a8_i  (ld_is_a8),
    .r_data_i,
    .beat_valid_i(beat_valid),
    .beat_ready_o(beat_ready),
    .beat_lo_i   (beat_lo),
    .beat_hi_i   (beat_hi),
    .elem_valid_o(elem_valid),
    .elem_want_i (elem_want),
    .is_elem_i   (wr_is_elem),
    .uop_wdata_o (uop_wdata),
    .acc_wdata_o (ld_acc_data)
  );

  assign uop_we      = wr_valid && ld_is_uop;
  assign uop_waddr   = LogUopDepth'(wr_addr);
  assign acc_ld_we   = wr_valid && !ld_is_uop;

  // ---- footprints (vta_footprint: D's, worked out over F0-F2; compat's flags) ----
  // Of the instruction in D, worked out (fp_done_q) from its fourth cycle there at the earliest:
  logic                fp_done_q, fp_ok_q, fp_nop_q, fp_src_q;
  logic [LogAccDepth-1:0] fp_dlo_q, fp_dhi_q, fp_slo_q, fp_shi_q;
  // Of the instruction each unit (0 GEMM, 1 ALU) issues, copied when it started:
  logic                run_ok_q [2];
  logic                run_nop_q [2];
  logic                run_src_q [2];
  logic [LogAccDepth-1:0] run_dlo_q [2];
  logic [LogAccDepth-1:0] run_dhi_q [2];
  logic [LogAccDepth-1:0] run_slo_q [2];
  logic [LogAccDepth-1:0] run_shi_q [2];
  // Of the instruction each unit issued before that one, while its last micro-ops may still be
  // on their way to ACC (prev_live_q[p][k]: k cycles from now): a unit takes its next
  // instruction in the cycle it issues the last micro-op of the one before, so for four more
  // cycles (three for the ALU) the run_* footprint no longer covers every micro-op the other
  // unit must wait for (the interlock of other_free, below).
  logic                prev_ok_q [2];
  logic                prev_nop_q [2];
  logic                prev_src_q [2];
  logic [LogAccDepth-1:0] prev_dlo_q [2];
  logic [LogAccDepth-1:0] prev_dhi_q [2];
  logic [LogAccDepth-1:0] prev_slo_q [2];
  logic [LogAccDepth-1:0] prev_shi_q [2];
  logic [3:0]          prev_live_q [2];


  function automatic logic apart(logic [LogAccDepth-1:0] lo_a, logic [LogAccDepth-1:0] hi_a,
                                 logic [LogAccDepth-1:0] lo_b, logic [LogAccDepth-1:0] hi_b);
    apart = (hi_a < lo_b) || (hi_b < lo_a);
  endfunction

  // ---- dispatch from D ----
  logic       g_issue, g_last, a_issue, a_last, unit;
  logic       own_free, other_free, compat, units_idle, drained, rq_room;
  logic       g_tail_q, a_tail_q;  // a micro-op in U1 to C3 (the ALU's C4)
  logic       can_uop, can_nop, can_uld, can_mem, mem_done, is_uld, uld_apart, ld_rq_q;
  logic [GemmUopEndW-1:0] run_bgn [2];
  logic [GemmUopEndW-1:0] run_end [2];
  logic       g_c1_valid, g_c1_write, g_c1_last, a_c1_valid, a_c1_write, a_c1_last;
  logic       g2_valid_q, a2_valid_q;
  logic         rq_zero, rq_full;  // the retire queue's count is 0, RqDepth
  logic       run_issue [2];
  logic       run_last [2];
  logic [3:0] run_tail_q [2];  // each unit issued its last micro-op one .. four cycles ago
  logic       a_stall;         // the ALU's front holds (its cycles do not count in the tails)

  assign run_issue[0] = g_issue;
  assign run_issue[1] = a_issue;
  assign run_last[0]  = g_last;
  assign run_last[1]  = a_last;
  assign unit         = is_alu;  // 0: the GEMM unit, 1: the ALU
  assign own_free     = !run_issue[unit] || run_last[unit];
  // The instruction in D against one footprint of the other unit (vta_footprint): both known,
  // and either one without micro-ops or destinations in different banks and neither reading what
  // the other writes, worked out while D holds the instruction and registered (ca_q, cb_q).
  // The other unit's footprints, picked by D's unit into registers every cycle: the
  // comparisons read them in F1 or later, when they hold what the pick made in F0 or later,
  // with D's instruction already there and the footprints unchanged since (only D's start
  // changes them). Picked in front of the comparisons, the pick and abc's mapping around it
  // put four LUT levels before the carry chains (3.04 ns on block8).
  logic                   o_src, o_psrc;
  logic [LogAccDepth-1:0] o_dlo, o_dhi, o_slo, o_shi, o_pdlo, o_pdhi, o_pslo, o_pshi;
  logic                   cw_run_q, cw_prev_q, ca_q, cb_q;
  always_ff @(posedge clk_i) begin
    o_src  <= run_src_q[!unit];
    o_dlo  <= run_dlo_q[!unit];
    o_dhi  <= run_dhi_q[!unit];
    o_slo  <= run_slo_q[!unit];
    o_shi  <= run_shi_q[!unit];
    o_psrc <= prev_src_q[!unit];
    o_pdlo <= prev_dlo_q[!unit];
    o_pdhi <= prev_dhi_q[!unit];
    o_pslo <= prev_slo_q[!unit];
    o_pshi <= prev_shi_q[!unit];
  end
  vta_footprint u_fpc (
    .clk_i,
    .rst_ni,
    .head_valid_i(cmd_valid_i),
    .take_i     (d_take),
    .head_i     (cmd_data_i),
    .head_load_i(cmd_next_load_i),
    .head_fill_i(cmd_next_fill_i),
    .next_i     (cmd_next_i),
    .d_valid_i  (d_valid_q),
    .d_fire_i   (d_fire),
    .d_i        (d_q),
    .uop_insn_i (is_gemm || is_alu),
    .is_alu_i   (is_alu),
    .nop_i      (zero_uops),
    .loading_i  (loading_q),
    .ld_done_i  (l2d_done),
    .uld_start_i(ld_start && hm.memory_type == MemUop),
    .uld_base_i (LogUopDepth'(hm.sram_base)),
    .uop_we_i   (uop_we),
    .uop_waddr_i(uop_waddr),
    .uop_wdata_i(uop_wdata),
    .uld_done_i (loading_q && l2d_done && ld_is_uop),
    .o_ok_i     (run_ok_q[!unit]),
    .o_nop_i    (run_nop_q[!unit]),
    .o_src_i    (o_src),
    .o_dlo_i    (o_dlo),
    .o_dhi_i    (o_dhi),
    .o_slo_i    (o_slo),
    .o_shi_i    (o_shi),
    .op_ok_i    (prev_ok_q[!unit]),
    .op_nop_i   (prev_nop_q[!unit]),
    .op_src_i   (o_psrc),
    .op_dlo_i   (o_pdlo),
    .op_dhi_i   (o_pdhi),
    .op_slo_i   (o_pslo),
    .op_shi_i   (o_pshi),
    .fp_done_o  (fp_done_q),
    .fp_ok_o    (fp_ok_q),
    .fp_nop_o   (fp_nop_q),
    .fp_src_o   (fp_src_q),
    .fp_dlo_o   (fp_dlo_q),
    .fp_dhi_o   (fp_dhi_q),
    .fp_slo_o   (fp_slo_q),
    .fp_shi_o   (fp_shi_q),
    .ca_o       (ca_q),
    .cb_o       (cb_q),
    .cw_run_o   (cw_run_q),
    .cw_prev_o  (cw_prev_q)
  );
  // Against the other unit's instruction and, while its micro-ops may still be in flight, the
  // one before it (without this an ALU instruction could start beside an empty GEMM and read
  // ACC entries the GEMM before that had not written yet): ca_q is fp_ok_q && run_ok_q[!unit]
  // && (fp_nop_q || run_nop_q[!unit] || cw_run_q), cb_q the same of prev_*.
  assign compat = ca_q && (!prev_live_q[!unit][0] || cb_q);
  // An instruction that may touch the other unit's elements starts only once the other unit's
  // last micro-op has written ACC (C3, the ALU's C4) before its own first read (C1, the ALU's
  // two cycles earlier): five cycles after the GEMM unit's last micro-op issued, four after the
  // ALU's, so no forwarding between the units is needed. The tail bits that count: four after
  // the GEMM unit (C3 - (C1 - 2) - 1), three after the ALU (C4 - C1 - 1).
  assign other_free   = (!run_issue[!unit] &&
                         ((run_tail_q[!unit] & (unit ? 4'b1111 : 4'b0111)) == 4'b0000)) ||
                        compat;
  assign units_idle   = g_idle && a_idle;
  assign drained      = units_idle && rq_zero && !loading_q;
  assign rq_room      = !rq_full;

  // A GEMM or ALU instruction leaves D once its footprint is worked out, so that one starting
  // alone does not block the other unit for its whole run for want of a footprint.
  // (can_uop itself is a term of the dispatch decision's level 3, below; can_uop_w is its
  // definition, for the assertion.)
  logic can_uop_w;
  assign can_uop_w = (is_gemm || is_alu) && fp_done_q && tokens_ok && !loading_q && own_free &&
                   other_free && rq_room;
  assign can_nop = known_load && load_empty && tokens_ok && !loading_q && rq_room;
  // A LOAD UOP of one row (as the ISA and the JIT use it) writes [sram_base, sram_base +
  // x_pad_0 + x_size + x_pad_1); with
  // padding rows its extent is not worked out here, and it waits for the units to stop issuing.
  assign is_uld  = d_valid_q && dk_uld_q;
  // The comparisons with the units' ranges are made as D takes the instruction and registered:
  // the ranges change only when a unit starts, which only D's instruction does, so while D holds
  // the load they stand. They are made against each unit's range now (ua_keep_q) and against
  // the range D's instruction of the take cycle would give the unit it starts (ua_new_q), and
  // whether that start happened (ua_st_q, the dispatch decision registered) picks, so the late
  // decision lies in front of no comparison. (The GEMM and ALU formats keep the micro-op range
  // in the same bits, so one comparison with D's range serves the unit it starts, whichever.)
  // (The load's end, bs + pp, at or below a range's start, bs + pp <= c, is the sign of
  // bs + pp - c - 1 = bs + pp + ~c in 19 bits: one carry chain behind a row of 3:2 compressors,
  // not a sum and then a comparison.)
  function automatic logic sum_le(logic [17:0] bs, logic [17:0] pp, logic [17:0] c);
    /* verilator lint_off UNUSEDSIGNAL */  // (the top carry and the low bits of the sum)
    logic [18:0] x, y, nc, s, m, r;
    /* verilator lint_on UNUSEDSIGNAL */
    x      = {1'b0, bs};
    y      = {1'b0, pp};
    nc     = ~{1'b0, c};
    s      = x ^ y ^ nc;
    m      = (x & y) | (x & nc) | (y & nc);
    r      = s + {m[17:0], 1'b0};
    sum_le = r[18];
  endfunction
  function automatic logic uld_clear(logic [GemmUopEndW-1:0] rbgn, logic [GemmUopEndW-1:0] rend,
                                     logic [17:0] base, logic [17:0] bs, logic [17:0] pp);
    uld_clear = (18'(rend) <= base) || sum_le(bs, pp, 18'(rbgn));
  endfunction
  logic [1:0] ua_keep_q, ua_st_q;
  logic       ua_new_q;
  always_ff @(posedge clk_i) begin
    if (d_take) begin
      for (int p = 0; p < 2; p++) begin
        ua_keep_q[p] <= uld_clear(run_bgn[p], run_end[p], 18'(cm.sram_base), c_bs_q, c_pp_q);
      end
      ua_new_q   <= uld_clear(UopIdxW'(hg.uop_bgn), hg.uop_end, 18'(cm.sram_base), c_bs_q,
                              c_pp_q);
      ua_st_q[0] <= g_start;
      ua_st_q[1] <= a_start;
    end
  end
  always_comb begin
    uld_apart = 1'b1;
    for (int p = 0; p < 2; p++) begin
      if (run_issue[p] && !(y_one_q && (ua_st_q[p] ? ua_new_q : ua_keep_q[p]))) begin
        uld_apart = 1'b0;
      end
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && is_uld) begin
      for (int p = 0; p < 2; p++) begin
        assert (!run_issue[p] || (ua_st_q[p] ? ua_new_q : ua_keep_q[p]) ==
                                 ((18'(run_end[p]) <= 18'(hm.sram_base)) ||
                                  (18'(hm.sram_base) + 18'(hm.x_pad_0) + 18'(hm.x_size) +
                                   18'(hm.x_pad_1) <= 18'(run_bgn[p]))))
        else $error("vta_compute: the registered micro-op load check of unit %0d disagrees", p);
      end
    end
  end
`endif
  assign can_uld = is_uld && tokens_ok && !loading_q && rq_room && uld_apart;
  // A LOAD ACC or ACC_8BIT without pads whose entries [sram_base, sram_base + rows x columns)
  // lie in the bank of the first starts beside a GEMM that writes only the other bank, once the
  // ALU is idle (so its writes meet no other writer of that bank), and completes through the
  // retire queue (so its pushes follow the GEMM's). Whether it fits is worked out over D's
  // first two cycles (rows x columns, registered beside the queue's head and taken with the
  // instruction, + the base's index in the bank - (bank size + 1) registered, then its sign: a
  // comparison behind the product's DSP slice, 1.8 ns after the clock, was 3.1-3.2 ns), and
  // read from the third.
  // The compiler loads a residual into the next unit's ACC slot so, beside the GEMMs.
  logic [1:0]        ald_age_q;
  logic signed [2*AldW+1:0] ald_diff_q;  // negative: the load ends within the bank
  logic              ald_big_q, ald_fit_q, is_ald, ald_sel, a_idle, g_idle, g_apart, ald_bank;
  logic              can_ald;
  always_ff @(posedge clk_i) begin
    if (d_take) ald_age_q <= '0;
    else if (ald_age_q != 2'd2) ald_age_q <= ald_age_q + 1'b1;
  end
  always_ff @(posedge clk_i) begin
    ald_diff_q <= $signed((2*AldW+2)'(d_prod_q)) +
                  $signed((2*AldW+2)'(hm.sram_base[BankW-1:0])) -
                  $signed((2*AldW+2)'(AccDepth / 2 + 1));
    ald_big_q  <= (32'(hm.y_size) >> AldW) != 0 || (32'(hm.x_size) >> AldW) != 0 ||
                  hm.x_pad_0 != '0 || hm.x_pad_1 != '0 || hm.y_pad_0 != '0 ||
                  hm.y_pad_1 != '0 || (32'(hm.sram_base) >> LogAccDepth) != 0;
    ald_fit_q  <= !ald_big_q && ald_diff_q[2*AldW+1];
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && d_valid_q && dk_ald_q && ald_age_q == 2'd2)
      assert (ald_fit_q == (!ald_big_q && longint'(hm.y_size) * longint'(hm.x_size) +
                            longint'(hm.sram_base[BankW-1:0]) <= longint'(AccDepth) / 2))
      else $error("vta_compute: the ACC load's fit disagrees with its fields");
  end
`endif
  assign is_ald   = d_valid_q && dk_ald_q;
  assign ald_bank = hm.sram_base[BankW];
  assign a_idle   = !a_issue && !a_tail_q;
  assign g_idle   = !g_issue && !g_tail_q;
  // The GEMM unit's instruction writes the other bank and has run long enough that the micro-
  // ops of the one before it have left the pipeline (C3: ComputeC1 + 2 cycles after their
  // issue, which was at the latest in its first cycle): the DMA's first write may come within
  // a few cycles, unlike an instruction's first ACC read, which is ComputeC1 cycles away.
  localparam int unsigned GSettle = ComputeC1 + 3;
  localparam int unsigned GAgeW = $clog2(GSettle + 1);
  logic [GAgeW-1:0] g_age_q;
  logic             g_settled_q;  // g_age_q == GSettle, a register for dispatch
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      g_age_q     <= GAgeW'(GSettle);
      g_settled_q <= 1'b1;
    end else if (g_start) begin
      g_age_q     <= GAgeW'(1);
      g_settled_q <= (GSettle == 1);
    end else if (g_age_q != GAgeW'(GSettle)) begin
      g_age_q     <= g_age_q + 1'b1;
      g_settled_q <= (g_age_q == GAgeW'(GSettle - 1));
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (g_settled_q == (g_age_q == GAgeW'(GSettle)))
                else $error("vta_compute: g_settled_q disagrees with g_age_q");
  end
`endif
  assign g_apart  = g_settled_q && run_ok_q[0] && !run_nop_q[0] &&
                    run_dlo_q[0][BankW] != ald_bank;
  assign can_ald  = ald_sel && tokens_ok && !loading_q && rq_room && a_idle &&
                    (g_idle || g_apart);
  // Everything else (ACC loads, FINISH, and opcodes that do not belong here); from its third
  // cycle in D, an ACC load that fits a bank goes only by can_ald (which holds whenever the
  // units are drained), so the two never fire together and the retire queue's push needs no
  // decision between them.
  assign ald_sel = is_ald && ald_age_q == 2'd2 && ald_fit_q;
  assign can_mem = d_valid_q && dk_mem_q && tokens_ok && drained && !ald_sel;
  // The dispatch decision (d_fire, then d_take and everything it loads) is a function of some
  // forty flip-flops. Written as the OR of the can_* above, abc mapped it four to six LUT and
  // MUXF levels deep and differently in each synthesis (d_take 2.2-2.9 ns, the records' pick
  // behind it 3.2-3.85), and terms marked (* keep *) did not hold it. So it is built here in
  // three levels of at most six inputs each, with a cut (vta_cut: a kept hierarchy level)
  // behind each level, so synthesis maps every level into one LUT; an assertion holds it to
  // the can_* form. The take (the queue's pop, and what D and the footprint load), the queue's
  // ready, the load's start and the token pops are level-3 terms of their own, not logic
  // behind d_fire: D's
  // emptiness is folded into level 2 (dp_me) and the queue's valid into level 3.
  // Level 1, of registers only (fp_done_q implies d_valid_q: it is set only for an instruction
  // D still holds).
  logic dp_com, dp_tg, dp_ta, dp_cp0, dp_cp1, dp_rg, dp_ra, dp_v0, dp_v1, dp_as, dp_gap, dp_tok,
        dp_dr;
  logic [12:0] dp_l1, dp_l1c;
  assign dp_l1[0]  = tokens_ok && !loading_q && !rq_full;                    // com
  assign dp_l1[1]  = !g_issue && ((run_tail_q[0] & 4'b1111) == 4'b0000);  // GEMM other_free's
  assign dp_l1[2]  = !a_issue && ((run_tail_q[1] & 4'b0111) == 4'b0000);  // ALU other_free's
  assign dp_l1[3]  = ca_q && (!prev_live_q[0][0] || cb_q);  // compat, the other being the GEMM
  assign dp_l1[4]  = ca_q && (!prev_live_q[1][0] || cb_q);  // ... the ALU
  assign dp_l1[5]  = fp_done_q && dk_gemm_q && (!g_issue || g_last);  // a GEMM, its unit free
  assign dp_l1[6]  = fp_done_q && dk_alu_q && (!a_issue || a_last);
  assign dp_l1[7]  = !run_issue[0] || (y_one_q && (ua_st_q[0] ? ua_new_q : ua_keep_q[0]));
  assign dp_l1[8]  = !run_issue[1] || (y_one_q && (ua_st_q[1] ? ua_new_q : ua_keep_q[1]));
  assign dp_l1[9]  = ald_sel;
  assign dp_l1[10] = g_apart;
  assign dp_l1[11] = tokens_ok;
  assign dp_l1[12] = drained;
  vta_cut #(.W(13)) u_dp_l1 (.i(dp_l1), .o(dp_l1c));
  assign {dp_dr, dp_tok, dp_gap, dp_as, dp_v1, dp_v0, dp_ra, dp_rg, dp_cp1, dp_cp0, dp_ta, dp_tg,
          dp_com} = dp_l1c;
  // Level 2 (nu: a LOAD that moves nothing, or a LOAD UOP apart from the units' kernels; ul:
  // the latter; me: D empty, or an instruction that waits for the units to drain and may go).
  logic dp_u, dp_nu, dp_ul, dp_a, dp_m, dp_me;
  logic [5:0] dp_l2, dp_l2c;
  assign dp_l2[0] = (dp_rg && (dp_ta || dp_cp1)) || (dp_ra && (dp_tg || dp_cp0));
  assign dp_l2[1] = d_valid_q && ((dk_load_q && dk_empty_q) || (dk_uld_q && dp_v0 && dp_v1));
  assign dp_l2[2] = d_valid_q && dk_uld_q && dp_v0 && dp_v1;
  assign dp_l2[3] = dp_as && !a_issue && !a_tail_q && ((!g_issue && !g_tail_q) || dp_gap);
  assign dp_l2[4] = d_valid_q && dk_mem_q && dp_tok && dp_dr && !dp_as;
  assign dp_l2[5] = !d_valid_q || (dk_mem_q && dp_tok && dp_dr && !dp_as);
  vta_cut #(.W(6)) u_dp_l2 (.i(dp_l2), .o(dp_l2c));
  assign {dp_me, dp_m, dp_a, dp_ul, dp_nu, dp_u} = dp_l2c;
  // Level 3.
  logic [9:0] dp_l3, dp_l3c;
  logic       g_start, a_start, rq_push;
  assign dp_l3[0] = dp_m || (dp_com && (dp_u || dp_nu || dp_a));                  // fire
  assign dp_l3[1] = dp_me || (dp_com && (dp_u || dp_nu || dp_a));                 // ready
  assign dp_l3[2] = cmd_valid_i && (dp_me || (dp_com && (dp_u || dp_nu || dp_a)));  // take
  assign dp_l3[3] = (dp_m && dk_load_q) || (dp_com && (dp_ul || dp_a));            // load start
  assign dp_l3[4] = hm.pop_prev && (dp_m || (dp_com && (dp_u || dp_nu || dp_a))); // token pops
  assign dp_l3[5] = hm.pop_next && (dp_m || (dp_com && (dp_u || dp_nu || dp_a)));
  // A GEMM or ALU instruction starts (dp_u implies d_valid_q), the GEMM unit's or the ALU's
  // sequencer starts, and what enters the retire queue.
  assign dp_l3[6] = dp_com && dp_u;
  assign dp_l3[7] = dp_com && dp_u && !dk_alu_q;
  assign dp_l3[8] = dp_com && dp_u && dk_alu_q;
  assign dp_l3[9] = dp_com && (dp_u || dp_nu || dp_a);
  vta_cut #(.W(10)) u_dp_l3 (.i(dp_l3), .o(dp_l3c));
  assign {rq_push, a_start, g_start, can_uop, tok_pop_store_o, tok_pop_load_o, ld_start, dp_take,
          dp_rdy, dp_fire} = dp_l3c;
  assign d_fire = dp_fire;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni)
      assert (can_uop == can_uop_w && g_start == (can_uop && !is_alu) &&
              a_start == (can_uop && is_alu) &&
              rq_push == (can_uop || can_nop || can_uld || can_ald) &&
              d_fire == (can_uop || can_nop || can_uld || can_mem || can_ald) &&
              cmd_ready_o == (!d_valid_q || d_fire) && d_take == (cmd_valid_i && cmd_ready_o) &&
              ld_start == ((can_mem && known_load) || can_uld || can_ald) &&
              tok_pop_load_o == (d_fire && hm.pop_prev) &&
              tok_pop_store_o == (d_fire && hm.pop_next))
      else $error("vta_compute: the dispatch decision's terms disagree with can_*");
  end
`endif

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      loading_q <= 1'b0;
      ld_rq_q   <= 1'b0;
    end else if (ld_start) begin
      loading_q <= 1'b1;
      ld_rq_q   <= can_uld || can_ald;  // completes through the retire queue
    end else if (l2d_done) begin
      loading_q <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (ld_start) ld_q <= hm;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int p = 0; p < 2; p++) run_tail_q[p] <= '0;
    end else begin
      for (int p = 0; p < 2; p++) begin
        if (p == 0 || !a_stall) run_tail_q[p] <= {run_tail_q[p][2:0], run_last[p]};
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int p = 0; p < 2; p++) run_ok_q[p] <= 1'b0;
    end else if (can_uop) begin
      run_ok_q[unit] <= fp_ok_q;
    end
  end
  // The footprint a unit's new instruction replaces stays live for the cycles in which the
  // replaced one's micro-ops may still be before C3 (the ALU's C4) with the other unit's read
  // after it: its last issued this cycle or in the three before (the two before, for the
  // ALU). Should it replace a footprint
  // that is itself still live next cycle (two instructions taken within two cycles), the two
  // are not merged: the kept one is marked unknown, so the other unit waits those cycles out
  // (sim/sc mirrors this rule). The ALU's windows stand still while its front stalls.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int p = 0; p < 2; p++) begin
        prev_live_q[p] <= '0;
        prev_ok_q[p]   <= 1'b0;
      end
    end else begin
      for (int p = 0; p < 2; p++) begin
        if (can_uop && unit == 1'(p)) begin
          // Live k cycles ahead (bit k-1) if the last issue was at most TailLen - k cycles ago:
          // four cycles for the GEMM unit, three for the ALU (the interlock above).
          prev_live_q[p] <= {1'b0, prev_live_q[p][3:1]} |
                            ((p == 0) ? {run_last[p],
                                         run_last[p] | run_tail_q[p][0],
                                         run_last[p] | run_tail_q[p][0] | run_tail_q[p][1],
                                         run_last[p] | run_tail_q[p][0] | run_tail_q[p][1] |
                                         run_tail_q[p][2]}
                                      : {1'b0, run_last[p],
                                         run_last[p] | run_tail_q[p][0],
                                         run_last[p] | run_tail_q[p][0] | run_tail_q[p][1]});
          prev_ok_q[p]   <= run_ok_q[p] && !prev_live_q[p][1];
        end else if (p == 0 || !a_stall) begin
          prev_live_q[p] <= {1'b0, prev_live_q[p][3:1]};
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    for (int p = 0; p < 2; p++) begin
      if (can_uop && unit == 1'(p)) begin
        prev_nop_q[p] <= run_nop_q[p];
        prev_src_q[p] <= run_src_q[p];
        prev_dlo_q[p] <= run_dlo_q[p];
        prev_dhi_q[p] <= run_dhi_q[p];
        prev_slo_q[p] <= run_slo_q[p];
        prev_shi_q[p] <= run_shi_q[p];
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (can_uop) begin
      run_nop_q[unit] <= fp_nop_q;
      run_src_q[unit] <= fp_src_q;
      run_dlo_q[unit] <= fp_dlo_q;
      run_dhi_q[unit] <= fp_dhi_q;
      run_slo_q[unit] <= fp_slo_q;
      run_shi_q[unit] <= fp_shi_q;
    end
  end

  // ---- the two sequencers ----
  logic [DstW-1:0]    g_dst, a_dst;
  logic [SrcW-1:0]    g_src, a_src;
  logic [WgtIdxW-1:0] g_wgt;
  logic               g_c1_reset;
  logic [AluTagW-1:0] a_c1_tag;
  logic g_x_valid, g_x_write, g_x_last, g_x_reset, a_x_valid, a_x_write, a_x_last;
  logic [DstW-1:0]    g_x_dst, a_x_dst;
  logic [SrcW-1:0]    a_x_src;
  logic [AluTagW-1:0] a_x_tag;
  logic               g_seq_busy, a_seq_busy, g_dly_busy, a_dly_busy;
  logic               g_seq_busy_nx, a_seq_busy_nx, g_dly_any_nx, a_dly_any_nx;
  logic               g_adv, a_adv, a_u2_valid, a_u2_write;
  // Only the index bits of ACC and the tag's reset, use_imm and opcode are compared.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [AluTagW-1:0] a_u2_tag;
  logic [DstW-1:0]    a_u2_dst, a_hz_xd, a_hz_ed, a_hz_fd;
  logic [SrcW-1:0]    a_u2_src, a_hz_xs, a_hz_es, a_hz_fs;
  /* verilator lint_on UNUSEDSIGNAL */

  vta_uop_seq #(.TagW(1)) u_gemm_seq (
    .clk_i,
    .rst_ni,
    .uop_we_i   (uop_we),
    .uop_waddr_i(uop_waddr),
    .uop_wdata_i(uop_wdata),
    .start_i    (g_start),
    .bgn_i      (UopIdxW'(hg.uop_bgn)),
    .end_i      (hg.uop_end),
    .iter_out_i (hg.iter_out),
    .iter_in_i  (hg.iter_in),
    .dfo_i      (DstW'(hg.dst_factor_out)),
    .dfi_i      (DstW'(hg.dst_factor_in)),
    .sfo_i      (SrcW'(hg.src_factor_out)),
    .sfi_i      (SrcW'(hg.src_factor_in)),
    .wfo_i      (WgtIdxW'(hg.wgt_factor_out)),
    .wfi_i      (WgtIdxW'(hg.wgt_factor_in)),
    .nop_i      (zero_uops),
    .shape_i    (d_shape_q),
    .tag_i      (hg.reset_reg),
    .stall_i    (1'b0),
    .issue_o    (g_issue),
    .adv_o      (g_adv),
    .last_o     (g_last),
    .bgn_o      (run_bgn[0]),
    .end_o      (run_end[0]),
    .x_valid_o  (g_x_valid),
    .x_write_o  (g_x_write),
    .x_last_o   (g_x_last),
    .x_tag_o    (g_x_reset),
    .x_dst_o    (g_x_dst),
    .x_src_o    (g_src),
    .x_wgt_o    (g_wgt),
    .busy_o     (g_seq_busy),
    .busy_next_o(g_seq_busy_nx),
    .u2_valid_o (),
    .u2_write_o (),
    .u2_tag_o   (),
    .u2_dst_o   (),
    .u2_src_o   (),
    .hz_xd_o    (),
    .hz_xs_o    (),
    .hz_ed_o    (),
    .hz_es_o    (),
    .hz_fd_o    (),
    .hz_fs_o    ()
  );

  vta_uop_seq #(.TagW(AluTagW), .KeepWgt(1'b0)) u_alu_seq (
    .clk_i,
    .rst_ni,
    .uop_we_i   (uop_we),
    .uop_waddr_i(uop_waddr),
    .uop_wdata_i(uop_wdata),
    .start_i    (a_start),
    .bgn_i      (UopIdxW'(ha.uop_bgn)),
    .end_i      (ha.uop_end),
    .iter_out_i (ha.iter_out),
    .iter_in_i  (ha.iter_in),
    .dfo_i      (DstW'(ha.dst_factor_out)),
    .dfi_i      (DstW'(ha.dst_factor_in)),
    .sfo_i      (SrcW'(ha.src_factor_out)),
    .sfi_i      (SrcW'(ha.src_factor_in)),
    .wfo_i      ('0),
    .wfi_i      ('0),
    .nop_i      (zero_uops),
    .shape_i    (d_shape_q),
    .tag_i      ({ha.reset_reg, ha.use_imm, ha.alu_opcode, ha.imm}),
    .stall_i    (a_stall),
    .issue_o    (a_issue),
    .adv_o      (a_adv),
    .last_o     (a_last),
    .bgn_o      (run_bgn[1]),
    .end_o      (run_end[1]),
    .x_valid_o  (a_x_valid),
    .x_write_o  (a_x_write),
    .x_last_o   (a_x_last),
    .x_tag_o    (a_x_tag),
    .x_dst_o    (a_x_dst),
    .x_src_o    (a_x_src),
    .x_wgt_o    (),
    .busy_o     (a_seq_busy),
    .busy_next_o(a_seq_busy_nx),
    .u2_valid_o (a_u2_valid),
    .u2_write_o (a_u2_write),
    .u2_tag_o   (a_u2_tag),
    .u2_dst_o   (a_u2_dst),
    .u2_src_o   (a_u2_src),
    .hz_xd_o    (a_hz_xd),
    .hz_xs_o    (a_hz_xs),
    .hz_ed_o    (a_hz_ed),
    .hz_es_o    (a_hz_es),
    .hz_fd_o    (a_hz_fd),
    .hz_fs_o    (a_hz_fs)
  );

  // ---- the ALU's stall (vta_alu_stall): a micro-op that reads the destination of one just
  // ahead of it waits until that result can be forwarded ----
  vta_alu_stall u_alu_stall (
    .clk_i,
    .rst_ni,
    .u2_valid_i  (a_u2_valid),
    .u2_write_i  (a_u2_write),
    .u2_use_imm_i(a_u2_tag[AluTagW-2]),
    .u2_reset_i  (a_u2_tag[AluTagW-1]),
    .u2_op_i     (a_u2_tag[AluImmW+:AluAluOpcodeW]),
    .u2_dst_i    (a_u2_dst),
    .u2_src_i    (a_u2_src),
    .hz_xd_i     (a_hz_xd),
    .hz_xs_i     (a_hz_xs),
    .hz_ed_i     (a_hz_ed),
    .hz_es_i     (a_hz_es),
    .hz_fd_i     (a_hz_fd),
    .hz_fs_i     (a_hz_fs),
    .x_valid_i   (a_x_valid),
    .x_write_i   (a_x_write),
    .x_reset_i   (a_x_tag[AluTagW-1]),
    .x_op_i      (a_x_tag[AluImmW+:AluAluOpcodeW]),
    .stall_o     (a_stall)
  );

  // ---- X to C1: the delay lines (the GEMM unit's operands meanwhile go through vta_gemm) ----
  localparam int unsigned XToC1 = ComputeC1 - 3;

  vta_delay #(.Width(3 + DstW), .Stages(XToC1)) u_g_dly (
    .clk_i,
    .rst_ni,
    .valid_i(g_x_valid),
    .data_i ({g_x_write, g_x_last, g_x_reset, g_x_dst}),
    .valid_o(g_c1_valid),
    .data_o ({g_c1_write, g_c1_last, g_c1_reset, g_dst}),
    .any_o  (g_dly_busy),
    .any_next_o(g_dly_any_nx)
  );
  // The ALU reads ACC two cycles earlier than the GEMM unit (its delay line is two stages
  // shorter): its operands are multiplexed in a stage of their own (O) and registered, and its
  // operations take three stages (C2a, C2b, C2c), so it writes in C4, the cycle after the
  // GEMM unit's write stage C3.
  vta_delay #(.Width(2 + AluTagW + DstW + SrcW), .Stages(ComputeAluC1 - 3)) u_a_dly (
    .clk_i,
    .rst_ni,
    .valid_i(a_x_valid),
    .data_i ({a_x_write, a_x_last, a_x_tag, a_x_dst, a_x_src}),
    .valid_o(a_c1_valid),
    .data_o ({a_c1_write, a_c1_last, a_c1_tag, a_dst, a_src}),
    .any_o  (a_dly_busy),
    .any_next_o(a_dly_any_nx)
  );

  // ---- C1: ACC reads ----
  logic [LogAccDepth-1:0] g_a1, a_a1, a_s1;
  logic                   g_rd, a_rd;
  assign g_a1 = LogAccDepth'(g_dst);
  assign a_a1 = LogAccDepth'(a_dst);
  assign a_s1 = LogAccDepth'(a_src);
  assign g_rd = g_c1_valid && g_c1_write;
  assign a_rd = a_c1_valid && a_c1_write;

  // INP and WGT are read in X: their data (block RAM output registers) enter vta_gemm two
  // cycles later, and its dot products reach C2 with the micro-op's control.
  assign inp_re_o    = g_x_valid;
  assign inp_raddr_o = LogInpDepth'(g_src);
  assign wgt_re_o    = g_x_valid;
  assign wgt_raddr_o = LogWgtDepth'(g_wgt);

  // ---- the stages after C1: R (ACC's array read), C2 (its output register; the result), C3
  // (the result register; ACC and OUT are written). The ALU: R, O (its operands registered,
  // vta_alu_fwd), C2a, C2b and C2c (vta_alu), C4 (its result register; ACC and OUT are
  // written) ----
  logic                   gr_valid_q, gr_write_q, gr_last_q, gr_reset_q;
  logic                   ar_valid_q, ar_write_q, ar_last_q;
  logic [LogAccDepth-1:0] gr_a_q, ar_a_q, ar_s_q;
  logic [AluTagW-1:0]     ar_tag_q;
  logic                   g2_write_q, g2_last_q, g2_reset_q, a2_write_q, a2_last_q;
  logic                   ao_valid_q, ao_write_q, ao_last_q, ao_reset_q;
  logic [AluAluOpcodeW-1:0] ao_op_q;
  logic [AluImmW-1:0]     ao_imm_q;
  logic [LogAccDepth-1:0] ao_a_q;
  logic [LogAccDepth-1:0] g2_a_q, a2_a_q;
  logic                   a2_reset_q, ar_reset, ar_use_imm;
  logic [3:0]             a2_kind_q;  // C2a's operation decoded (vta_alu's kind_i)
  logic [AluAluOpcodeW-1:0] a2_op_q, ar_op;
  logic [AluImmW-1:0]     ar_imm, a2_imm_q;
  logic [AccWidth-1:0]    ar_imm_ext;
  logic                   g3_valid_q, g3_write_q, g3_last_q, g3_reset_q;
  logic                   a3_valid_q, a3_write_q, a3_last_q;
  logic [LogAccDepth-1:0] g3_a_q, a3_a_q;
  logic                   ac_valid_q, ac_write_q, ac_last_q;
  logic [LogAccDepth-1:0] ac_a_q;
  logic                   a4_valid_q, a4_write_q, a4_last_q;
  logic [LogAccDepth-1:0] a4_a_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      gr_valid_q <= 1'b0;
      ar_valid_q <= 1'b0;
      ao_valid_q <= 1'b0;
      ao_reset_q <= 1'b0;
      ao_op_q    <= '0;
      g2_valid_q <= 1'b0;
      a2_valid_q <= 1'b0;
      a2_reset_q <= 1'b0;
      a2_op_q    <= '0;
      a2_kind_q  <= '0;
      ao_write_q <= 1'b0;
      a2_write_q <= 1'b0;
      g3_valid_q <= 1'b0;
      a3_valid_q <= 1'b0;
      ac_valid_q <= 1'b0;
      a4_valid_q <= 1'b0;
      g3_last_q  <= 1'b0;
      a4_last_q  <= 1'b0;
    end else begin
      gr_valid_q <= g_c1_valid;
      ar_valid_q <= a_c1_valid;
      g2_valid_q <= gr_valid_q;
      ao_valid_q <= ar_valid_q;
      a2_valid_q <= ao_valid_q;
      // The ALU's operation and immediate, reset so that synthesis keeps them in flip-flops:
      // as the end of a shift-register chain (an SRL16E) their clock-to-output delay (1.5 ns
      // of cell delay against 0.4 ns) would open the operations' path in C2a.
      ao_reset_q <= ar_reset;
      ao_op_q    <= ar_op;
      a2_reset_q <= ao_reset_q;
      a2_op_q    <= ao_op_q;
      // (So are the write flags in O and C2a, which the forwarding's selects read: 3.24 ns on
      // block8 from an SRL16E.)
      ao_write_q <= ar_write_q;
      a2_write_q <= ao_write_q;
      // {ADD, MIN or MAX, MAX, the shift's or the destination's result}, no reset in the first
      // two or the last: registered so that C2a's operand gating in front of its carry chains
      // reads flip-flops (decoded there, three LUT levels: 4.0 ns).
      a2_kind_q  <= {(ao_op_q == AluAdd) && !ao_reset_q,
                     (ao_op_q == AluMin || ao_op_q == AluMax) && !ao_reset_q,
                     (ao_op_q == AluMax),
                     !ao_reset_q && ao_op_q != AluAdd && ao_op_q != AluMin &&
                     ao_op_q != AluMax};
      g3_valid_q <= g2_valid_q;
      a3_valid_q <= a2_valid_q;
      ac_valid_q <= a3_valid_q;
      a4_valid_q <= ac_valid_q;
      // The same for the last-micro-op flags that open retirement (g_done, a_done).
      g3_last_q  <= g2_last_q;
      a4_last_q  <= ac_last_q;
    end
  end
  // Whether a unit has a micro-op anywhere from U1 to its last stage, a register each (g_tail_q,
  // a_tail_q) set from what every stage holds in the next cycle: the idle tests of dispatch
  // (a LOAD ACC beside the GEMM unit, draining) start at one flip-flop per unit, not at an OR
  // of some fifteen valid bits.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      g_tail_q <= 1'b0;
      a_tail_q <= 1'b0;
    end else begin
      g_tail_q <= g_seq_busy_nx || g_dly_any_nx || g_c1_valid || gr_valid_q || g2_valid_q;
      a_tail_q <= a_seq_busy_nx || a_dly_any_nx || a_c1_valid || ar_valid_q || ao_valid_q ||
                  a2_valid_q || a3_valid_q || ac_valid_q;
    end
  end
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (g_tail_q == (g_seq_busy || g_dly_busy || gr_valid_q || g2_valid_q || g3_valid_q) &&
              a_tail_q == (a_seq_busy || a_dly_busy || ar_valid_q || ao_valid_q || a2_valid_q ||
                           a3_valid_q || ac_valid_q || a4_valid_q))
      else $error("vta_compute: a unit's busy register disagrees with its stages");
    end
  end
`endif
  always_ff @(posedge clk_i) begin
    gr_write_q <= g_c1_write;
    gr_last_q  <= g_c1_last;
    gr_reset_q <= g_c1_reset;
    gr_a_q     <= g_a1;
    ar_write_q <= a_c1_write;
    ar_last_q  <= a_c1_last;
    ar_tag_q   <= a_c1_tag;
    ar_a_q     <= a_a1;
    ar_s_q     <= a_s1;
    g2_write_q <= gr_write_q;
    g2_last_q  <= gr_last_q;
    g2_reset_q <= gr_reset_q;
    g2_a_q     <= gr_a_q;
    ao_last_q  <= ar_last_q;
    ao_a_q     <= ar_a_q;
    ao_imm_q   <= ar_imm;
    a2_last_q  <= ao_last_q;
    a2_a_q     <= ao_a_q;
    a2_imm_q   <= ao_imm_q;  // SHRCLIP's lower bound (its operand is a vector)
    g3_write_q <= g2_write_q;
    g3_reset_q <= g2_reset_q;
    g3_a_q     <= g2_a_q;
    a3_write_q <= a2_write_q;
    a3_last_q  <= a2_last_q;
    a3_a_q     <= a2_a_q;
    ac_write_q <= a3_write_q;
    ac_last_q  <= a3_last_q;
    ac_a_q     <= a3_a_q;
    a4_write_q <= ac_write_q;
    a4_a_q     <= ac_a_q;
  end
  // The immediate goes into the second operand's register in R (below); C2 needs the rest.
  assign {ar_reset, ar_use_imm, ar_op, ar_imm} = ar_tag_q;
  assign ar_imm_ext = AccWidth'($signed(ar_imm));

  // ---- ACC: two banks by the index MSB, each two copies (vta_acc_banks) ----
  logic            g3_wr, a4_wr;
  logic [AccW-1:0] g_res_q, a_res;
  logic [LogAccDepth-1:0] ld_waddr;
  logic [2*AccW-1:0] acc_a_rdata, acc_b_rdata;  // copy a, copy b; bank b at [b*AccW +: AccW]

  assign g3_wr    = g3_valid_q && g3_write_q;
  assign a4_wr    = a4_valid_q && a4_write_q;
  assign ld_waddr = LogAccDepth'(wr_addr);

  vta_acc_banks u_acc (
    .clk_i,
    .rst_ni,
    .g_rd_i   (g_rd),
    .g_addr_i (g_a1),
    .a_rd_i   (a_rd),
    .a_addr_i (a_a1),
    .s_addr_i (a_s1),
    .a_rdata_o(acc_a_rdata),
    .b_rdata_o(acc_b_rdata),
    .g_we_i   (g3_wr),
    .g_waddr_i(g3_a_q),
    .g_wdata_i(g_res_q),
    .a_we_i   (a4_wr),
    .a_waddr_i(a4_a_q),
    .a_wdata_i(a_res),
    .l_we_i   (acc_ld_we),
    .l_waddr_i(ld_waddr),
    .l_wdata_i(ld_acc_data)
  );

  // ---- forwarding ----
  // Each unit forwards its own results to a micro-op that reads ACC before they are written:
  // the GEMM unit in C2 (vta_gemm_fwd: three writes missed), the ALU in its operand stage O
  // (vta_alu_fwd: six missed, those whose results are not ready yet stalled away). The other
  // unit's writes need no forwarding: a unit starts an instruction that may touch the other's
  // elements only once the other's last micro-op has written (dispatch, above).
  logic [AccW-1:0] g_dst_val, gemm_res, gemm_dot;
  vta_gemm_fwd u_gemm_fwd (
    .clk_i,
    .rst_ni,
    .r_a_i    (gr_a_q),
    .c2_wr_i  (g2_valid_q && g2_write_q),
    .c2_a_i   (g2_a_q),
    .c3_wr_i  (g3_wr),
    .c3_a_i   (g3_a_q),
    .a_rdata_i(acc_a_rdata),
    .res_i    (g_res_q),
    .dst_o    (g_dst_val)
  );

  logic [AccW-1:0] a_dst_val, a_src_val, a_pre, a_mid;
  vta_alu_fwd u_alu_fwd (
    .clk_i,
    .rst_ni,
    .r_dst_i    (ar_a_q),
    .r_src_i    (ar_s_q),
    .r_use_imm_i(ar_use_imm),
    .r_imm_i    (ar_imm_ext),
    .r_wr_i     (ar_valid_q && ar_write_q),
    .o_wr_i     (ao_valid_q && ao_write_q),
    .o_a_i      (ao_a_q),
    .c2a_mul_i  ((a2_op_q == AluMul) && !a2_reset_q),
    .c2a_clip_i ((a2_op_q == AluShrclip) && !a2_reset_q),
    .c2a_wr_i   (a2_valid_q && a2_write_q),
    .c2a_a_i    (a2_a_q),
    .c2b_wr_i   (a3_valid_q && a3_write_q),
    .c2b_a_i    (a3_a_q),
    .c2c_wr_i   (ac_valid_q && ac_write_q),
    .c2c_a_i    (ac_a_q),
    .c4_wr_i    (a4_wr),
    .c4_a_i     (a4_a_q),
    .a_rdata_i  (acc_a_rdata),
    .b_rdata_i  (acc_b_rdata),
    .pre_i      (a_pre),
    .mid_i      (a_mid),
    .res_i      (a_res),
    .dst_o      (a_dst_val),
    .src_o      (a_src_val)
  );

  // ---- C2: the arithmetic; C3: the result registers (the ALU: C2a, C2b, C2c, C4) ----
  // (its registers load only for a micro-op: X's valid, delayed inside as INP's and WGT's
  // data are by their read and output register)
  vta_gemm #(.VDelay(2)) u_gemm (
    .clk_i,
    .x_valid_i(g_x_valid),
    .inp_i(inp_rdata_i),
    .wgt_i(wgt_rdata_i),
    .dot_o(gemm_dot)
  );
  // The accumulate: each lane wraps to AccWidth bits.
  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      gemm_res[l*AccWidth+:AccWidth] = g_dst_val[l*AccWidth+:AccWidth] +
                                       gemm_dot[l*AccWidth+:AccWidth];
    end
  end

  vta_alu u_alu (
    .clk_i,
    .en2_i    (a2_valid_q && a2_write_q),
    .op_i     (a2_op_q),
    .reset_i  (a2_reset_q),
    .kind_i   (a2_kind_q),
    .imm_i    (a2_imm_q),
    .dst_i    (a_dst_val),
    .src_i    (a_src_val),
    .pre_o    (a_pre),
    .en3_i    (a3_valid_q && a3_write_q),
    .mid_o    (a_mid),
    .en4_i    (ac_valid_q && ac_write_q),
    .res_o    (a_res)
  );

  // A micro-op with the reset flag writes zero (the register's synchronous clear). The result
  // registers load only for writing micro-ops, so h1 stays the unit's last write.
  always_ff @(posedge clk_i) begin
    if (g2_valid_q && g2_write_q) g_res_q <= g2_reset_q ? '0 : gemm_res;
  end

  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      out_g_wdata_o[l*OutWidth+:OutWidth] = g_res_q[l*AccWidth+:OutWidth];
      out_a_wdata_o[l*OutWidth+:OutWidth] = a_res[l*AccWidth+:OutWidth];
    end
  end
  assign out_g_we_o    = g3_wr;
  assign out_g_waddr_o = LogOutDepth'(g3_a_q);
  assign out_a_we_o    = a4_wr;
  assign out_a_waddr_o = LogOutDepth'(a4_a_q);

  // ---- retirement in program order (vta_retire) ----
  // The kind pushed comes from D's registered kind (the dispatch conditions are one per kind),
  // not from the late decisions.
  logic [RqW:0]   g_done_q, a_done_q;
  logic           g_done, a_done, l_done, retire;
  logic [1:0]     push_kind;
  logic           head_pp, head_pn;

  assign g_done    = g3_valid_q && g3_last_q;
  assign a_done    = a4_valid_q && a4_last_q;
  assign l_done    = loading_q && l2d_done && ld_rq_q;
  assign push_kind = (dk_uld_q || dk_ald_q) ? 2'd3 :
                     ((dk_load_q && dk_empty_q) ? 2'd2 : {1'b0, dk_alu_q});
  vta_retire #(.Depth(RqDepth)) u_retire (
    .clk_i,
    .rst_ni,
    .push_i     (rq_push),
    .push_kind_i(push_kind),
    .push_pp_i  (hm.push_prev),
    .push_pn_i  (hm.push_next),
    .zero_o     (rq_zero),
    .full_o     (rq_full),
    .g_done_i   (g_done),
    .a_done_i   (a_done),
    .l_done_i   (l_done),
    .retire_o   (retire),
    .head_pp_o  (head_pp),
    .head_pn_o  (head_pn),
    .g_done_o   (g_done_q),
    .a_done_o   (a_done_q)
  );
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && rq_push) begin
      assert (push_kind == ((can_uld || can_ald) ? 2'd3 : (can_nop ? 2'd2 : {1'b0, unit})))
      else $error("vta_compute: the retire queue's kind disagrees with the dispatch");
    end
  end
`endif

  // ---- completion, tokens, status ----
  // FINISH and opcodes that do not belong here complete when they leave D, loads when done.
  assign mem_done = (can_mem && !known_load) || (loading_q && l2d_done && !ld_rq_q);
  assign tok_push_load_o  = (retire && head_pp) ||
                            (can_mem && !known_load && hm.push_prev) ||
                            (loading_q && l2d_done && !ld_rq_q && ld_q.push_prev);
  assign tok_push_store_o = (retire && head_pn) ||
                            (can_mem && !known_load && hm.push_next) ||
                            (loading_q && l2d_done && !ld_rq_q && ld_q.push_next);
  assign finish_o    = can_mem && is_finish;
  assign insn_done_o = retire || mem_done;
  assign gemm_uop_o  = g3_wr;
  assign mac_uop_o   = g3_wr && !g3_reset_q;
  assign alu_uop_o   = a4_wr;
  assign dual_o      = g3_wr && a4_wr;
  assign busy_o      = !units_idle || loading_q || l2d_busy || !rq_zero;
  assign pending_o   = d_valid_q;
  assign stall_o     = (d_valid_q && !tokens_ok && !g_issue && !a_issue && !loading_q) ||
                       (d_valid_q && !(is_gemm || is_alu) && !(known_load && load_empty) &&
                        !is_uld && !drained && !g_issue && !a_issue && !loading_q) ||
                       l2d_waiting;

`ifndef SYNTHESIS
  // A unit's micro-ops stay inside the footprint its instruction was admitted with.
  logic run_adv [2];
  assign run_adv[0] = g_adv;
  assign run_adv[1] = a_adv;
  vta_fp_check u_fp_check (
    .clk_i,
    .rst_ni,
    .adv_i     (run_adv),
    .a_stall_i (a_stall),
    .run_ok_i  (run_ok_q),
    .run_nop_i (run_nop_q),
    .run_src_i (run_src_q[1]),
    .run_dlo_i (run_dlo_q),
    .run_dhi_i (run_dhi_q),
    .run_slo_i (run_slo_q),
    .run_shi_i (run_shi_q),
    .g_valid_i (g_x_valid),
    .g_write_i (g_x_write),
    .g_dst_i   (LogAccDepth'(g_x_dst)),
    .a_valid_i (a_x_valid),
    .a_write_i (a_x_write),
    .a_dst_i   (LogAccDepth'(a_x_dst)),
    .a_src_i   (LogAccDepth'(a_x_src))
  );

  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // Both units issue only instructions admitted together: known, disjoint footprints.
      assert (!(g_issue && a_issue) ||
              (run_ok_q[0] && run_ok_q[1] &&
               (run_nop_q[0] || run_nop_q[1] ||
                ((run_dlo_q[0][BankW] != run_dlo_q[1][BankW]) &&
                 (run_dlo_q[0][BankW] == run_dhi_q[0][BankW]) &&
                 (run_dlo_q[1][BankW] == run_dhi_q[1][BankW]) &&
                 (!run_src_q[1] || apart(run_dlo_q[0], run_dhi_q[0], run_slo_q[1], run_shi_q[1]))))))
      else $error("vta_compute: GEMM and ALU instructions that can interfere issue together");
      assert (!(g3_wr && a4_wr && g3_a_q == a4_a_q))
      else $error("vta_compute: both units wrote ACC entry %0d in one cycle", g3_a_q);
      assert (!(retire && mem_done)) else $error("vta_compute: two completions in one cycle");
      // The registered comparisons agree with the footprints they stand for, where compat
      // reads them (a side without micro-ops has bounds that mean nothing).
      assert (!fp_done_q || !fp_ok_q || fp_nop_q || run_nop_q[!unit] ||
              (cw_run_q == ((fp_dlo_q[BankW] != run_dlo_q[!unit][BankW]) &&
                            (!run_src_q[!unit] || apart(fp_dlo_q, fp_dhi_q, run_slo_q[!unit],
                                                        run_shi_q[!unit])) &&
                            (!fp_src_q || apart(fp_slo_q, fp_shi_q, run_dlo_q[!unit],
                                                run_dhi_q[!unit])))))
      else $error("vta_compute: the registered footprint comparison disagrees");
      // compat's flags, worked out in F2, stand until dispatch reads them.
      assert (!fp_done_q ||
              (ca_q == (fp_ok_q && run_ok_q[!unit] && (fp_nop_q || run_nop_q[!unit] || cw_run_q)) &&
               cb_q == (fp_ok_q && prev_ok_q[!unit] &&
                        (fp_nop_q || prev_nop_q[!unit] || cw_prev_q))))
      else $error("vta_compute: compat's registered flags disagree with the footprints");
      // An ACC load runs alone, or beside a GEMM that neither reads nor writes its bank.
      assert (!(acc_ld_we && !a_idle)) else $error("vta_compute: ACC load while the ALU runs");
      assert (!(loading_q && !ld_is_uop && ((g3_wr && g3_a_q[BankW] == ld_q.sram_base[BankW]) ||
                                            (g_rd && g_a1[BankW] == ld_q.sram_base[BankW]))))
      else $error("vta_compute: the GEMM unit uses ACC bank %0d of a running ACC load (%0d)",
                  ld_q.sram_base[BankW], ld_q.sram_base);
      assert (!(uop_we && g_issue && (GemmUopEndW'(uop_waddr) >= run_bgn[0]) &&
                (GemmUopEndW'(uop_waddr) < run_end[0])))
      else $error("vta_compute: LOAD UOP writes entry %0d that the GEMM unit reads", uop_waddr);
      assert (!(uop_we && a_issue && (GemmUopEndW'(uop_waddr) >= run_bgn[1]) &&
                (GemmUopEndW'(uop_waddr) < run_end[1])))
      else $error("vta_compute: LOAD UOP writes entry %0d that the ALU reads", uop_waddr);
      assert (!(g_done && g_done_q == (RqW + 1)'(RqDepth)) &&
              !(a_done && a_done_q == (RqW + 1)'(RqDepth)))
      else $error("vta_compute: completion counter overflow");
    end
  end
`endif
endmodule

// vta_add_split - a + b with the upper part's sum worked out for both carries (carry select).
//
// A 64-bit byte address sum is a 16-stage CARRY4 chain, about 2.2 ns of cell delay on its own
// (the burst generators' next addresses: 3.5 ns from a register with the logic around them).
// Split at Lo bits, the low chain and the two upper sums run side by side and the low part's
// carry picks one: about half the chain plus a LUT. The pick is an AND-OR, not a multiplexer:
// yosys' opt_share would fold two sums behind a multiplexer into one sum behind a multiplexer
// of its operand, putting the carry in front of the upper chain again.
module vta_add_split #(
  parameter int unsigned W  = 64,
  parameter int unsigned Lo = 32  // the low part's bits (the whole sum when W <= Lo)
) (
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  output logic [W-1:0] sum_o
);
  if (W <= Lo) begin : g_plain
    assign sum_o = a_i + b_i;
  end else begin : g_split
    localparam int unsigned Hi = W - Lo;
    logic [Lo:0]   lo;
    logic [Hi-1:0] hi0, hi1;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [Hi:0]   hi1_w;  // bit 0 is the carry-in bit's own sum
    /* verilator lint_on UNUSEDSIGNAL */
    assign lo    = {1'b0, a_i[Lo-1:0]} + {1'b0, b_i[Lo-1:0]};
    assign hi0   = a_i[W-1:Lo] + b_i[W-1:Lo];
    // a + b + 1 as one sum (the 1 a carry in through a low bit set in both operands): written
    // as a + b + 1'b1, yosys adds the 1 to hi0's sum, a second chain behind the first.
    assign hi1_w = {a_i[W-1:Lo], 1'b1} + {b_i[W-1:Lo], 1'b1};
    assign hi1   = hi1_w[Hi:1];
    assign sum_o = {({Hi{lo[Lo]}} & hi1) | ({Hi{!lo[Lo]}} & hi0), lo[Lo-1:0]};
  end
endmodule

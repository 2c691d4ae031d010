// vta_part_beats - how many beats a row's partial ends add to its whole ones (0, 1 or 2).
//
// A row that starts at byte offset o of a beat and has row bytes r = h * 2^L + l covers
// h + (o + l + 2^L - 1) / 2^L beats; the carry is 0, 1 or 2 and depends on the L low bits of
// the start and of the row bytes only. vta_burst_gen needs it for every command's first burst;
// the DMA parents work it out beside their byte-address registers, so that the choice among
// the first burst's three variants is a register; vta_row_beats for every row's beat count.
module vta_part_beats #(
  parameter int unsigned LogBusBytes = 3
) (
  input  logic [LogBusBytes-1:0] start_lo_i,  // the row's start, its low bits
  input  logic [LogBusBytes-1:0] bytes_lo_i,  // the row's bytes, their low bits
  output logic [1:0]             part_o
);
  localparam int unsigned L = LogBusBytes;
  // With t = start + bytes (at most 2^(L+1) - 2), the carry is ceil(t / 2^L): 0 for t = 0, 1
  // up to 2^L, 2 above. As bits: t's top bit and whether its low bits are zero. The sum is
  // written as logic (vta_add_lut), so that the part is a function of 2L bits that synthesis
  // maps in a few LUT levels, folded into what reads it, rather than a carry chain and a
  // comparison behind it.
  logic [L:0] t;
  logic       low_nz;
  vta_add_lut #(.W(L)) u_t (.a_i(start_lo_i), .b_i(bytes_lo_i), .sum_o(t));
  assign low_nz = |t[L-1:0];
  assign part_o = {t[L] && low_nz, t[L] ^ low_nz};
endmodule

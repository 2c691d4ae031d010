// vta_page_beats - the bus beats from the beat holding an address to the next 4 KiB boundary
// (an AXI4 burst must not cross one), from the address's low 12 bits.
//
// vta_burst_gen needs it for every command's first burst; the DMA parents work it out beside
// their byte-address registers (from the value those take), so that the burst's length starts
// at a register instead of behind this subtraction.
module vta_page_beats #(
  parameter int unsigned LogBusBytes = 3
) (
  input  logic [11:0]                                     addr_i,
  output logic [$clog2((4096 >> LogBusBytes) + 1)-1:0]    beats_o
);
  localparam int unsigned PageW = $clog2((4096 >> LogBusBytes) + 1);
  logic [11:0] beat;
  assign beat    = addr_i & ~12'((1 << LogBusBytes) - 1);
  assign beats_o = PageW'((13'd4096 - {1'b0, beat}) >> LogBusBytes);
endmodule

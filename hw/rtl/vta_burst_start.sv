// vta_burst_start - a DMA command's first-burst inputs for vta_burst_gen (PageIn), registered:
// the beats from its byte address to the next 4 KiB boundary (vta_page_beats) and its rows'
// partial beats (vta_part_beats), taken with en_i. The DMA parents (fetch, load, store and the
// compute module's loads) register them beside their byte-address registers, from the value
// those take, so that the burst generator's first burst starts from registers.
module vta_burst_start #(
  parameter int unsigned LogBusBytes = 3
) (
  input  logic                                           clk_i,
  input  logic                                           en_i,
  input  logic [11:0]                                    addr_lo_i,   // the address's low bits
  input  logic [LogBusBytes-1:0]                         bytes_lo_i,  // the row bytes' low bits
  output logic [$clog2((4096 >> LogBusBytes) + 1)-1:0]   page_o,
  output logic [1:0]                                     part_o
);
  logic [$clog2((4096 >> LogBusBytes) + 1)-1:0] page;
  logic [1:0]                                   part;
  vta_page_beats #(.LogBusBytes(LogBusBytes)) u_page (.addr_i(addr_lo_i), .beats_o(page));
  vta_part_beats #(.LogBusBytes(LogBusBytes)) u_part (
    .start_lo_i(addr_lo_i[LogBusBytes-1:0]), .bytes_lo_i(bytes_lo_i), .part_o(part)
  );
  always_ff @(posedge clk_i) begin
    if (en_i) begin
      page_o <= page;
      part_o <= part;
    end
  end
endmodule

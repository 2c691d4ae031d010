// vta_ld_elems - the compute module's loads from the bus to its buffers: the DMA's beats enter
// the read gearbox of the load's memory type (micro-ops, ACC, ACC_8BIT), whose elements the DMA
// takes for its buffer writes. ld_is_*_i name the load's type (registers, from its start);
// padding writes (not is_elem_i) write zeros. ACC_8BIT's narrow lanes are sign-extended to ACC
// lanes.
module vta_ld_elems
  import vta_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         ld_is_uop_i,
  input  logic                         ld_is_acc_i,
  input  logic                         ld_is_a8_i,
  input  logic [BusWidth-1:0]          r_data_i,
  input  logic                         beat_valid_i,
  output logic                         beat_ready_o,
  input  logic [LogBusBytes-1:0]       beat_lo_i,
  input  logic [LogBusBytes-1:0]       beat_hi_i,
  output logic                         elem_valid_o,
  input  logic                         elem_want_i,  // the DMA takes an element if there is one
  input  logic                         is_elem_i,    // the write is an element, not padding
  output logic [UopBytes*8-1:0]        uop_wdata_o,
  output logic [AccLanes*AccWidth-1:0] acc_wdata_o
);
  logic uop_ready, acc_ready, a8_ready, uop_valid, acc_valid, a8_valid;
  logic [UopBytes*8-1:0]         uop_elem;
  logic [AccElemBytes*8-1:0]     acc_elem;
  logic [Acc8bitElemBytes*8-1:0] a8_elem;
  logic [AccLanes*AccWidth-1:0]  a8_wide;

  vta_rd_gearbox #(.ElemBytes(UopBytes), .BusBytes(BusBytes)) u_uop_gb (
    .clk_i, .rst_ni,
    .in_valid_i (beat_valid_i && ld_is_uop_i), .in_ready_o(uop_ready), .in_data_i(r_data_i),
    .in_lo_i    (beat_lo_i), .in_hi_i(beat_hi_i),
    .out_valid_o(uop_valid), .out_ready_i(elem_want_i && ld_is_uop_i), .out_data_o(uop_elem)
  );
  vta_rd_gearbox #(.ElemBytes(AccElemBytes), .BusBytes(BusBytes)) u_acc_gb (
    .clk_i, .rst_ni,
    .in_valid_i (beat_valid_i && ld_is_acc_i), .in_ready_o(acc_ready), .in_data_i(r_data_i),
    .in_lo_i    (beat_lo_i), .in_hi_i(beat_hi_i),
    .out_valid_o(acc_valid), .out_ready_i(elem_want_i && ld_is_acc_i), .out_data_o(acc_elem)
  );
  vta_rd_gearbox #(.ElemBytes(Acc8bitElemBytes), .BusBytes(BusBytes)) u_a8_gb (
    .clk_i, .rst_ni,
    .in_valid_i (beat_valid_i && ld_is_a8_i), .in_ready_o(a8_ready), .in_data_i(r_data_i),
    .in_lo_i    (beat_lo_i), .in_hi_i(beat_hi_i),
    .out_valid_o(a8_valid), .out_ready_i(elem_want_i && ld_is_a8_i), .out_data_o(a8_elem)
  );

  always_comb begin
    beat_ready_o = ld_is_uop_i ? uop_ready : (ld_is_acc_i ? acc_ready : a8_ready);
    elem_valid_o = ld_is_uop_i ? uop_valid : (ld_is_acc_i ? acc_valid : a8_valid);
    for (int l = 0; l < AccLanes; l++) begin
      a8_wide[l*AccWidth+:AccWidth] = AccWidth'($signed(a8_elem[l*Acc8Width+:Acc8Width]));
    end
  end
  assign uop_wdata_o = is_elem_i ? uop_elem : '0;
  assign acc_wdata_o = !is_elem_i ? '0 : (ld_is_acc_i ? acc_elem : a8_wide);
endmodule

// vta_gemm - the GEMM core: BATCH x BLOCK_OUT dot products of BLOCK_IN terms, added to an ACC
// element, in one cycle.
//
// ACC[b][o] + sum over c of INP[b][c] * WGT[o][c]: the weight tile is stored [BLOCK_OUT]
// [BLOCK_IN], so a tile computes x * W^T. Lanes are packed little-endian (lane 0 in the low
// bits). Products are formed at their exact width and the sum wraps to AccWidth bits, which is
// the same result modulo 2^AccWidth as the functional simulator's arithmetic.
module vta_gemm
  import vta_pkg::*;
(
  input  logic [Batch*BlockIn*InpWidth-1:0]    inp_i,
  input  logic [BlockOut*BlockIn*WgtWidth-1:0] wgt_i,
  input  logic [AccLanes*AccWidth-1:0]         acc_i,
  output logic [AccLanes*AccWidth-1:0]         acc_o
);
  always_comb begin
    for (int b = 0; b < Batch; b++) begin
      for (int o = 0; o < BlockOut; o++) begin
        logic [AccWidth-1:0] sum;
        sum = acc_i[(b*BlockOut+o)*AccWidth+:AccWidth];
        for (int c = 0; c < BlockIn; c++) begin
          logic signed [InpWidth-1:0] x;
          logic signed [WgtWidth-1:0] w;
          logic signed [InpWidth+WgtWidth-1:0] p;
          x = inp_i[(b*BlockIn+c)*InpWidth+:InpWidth];
          w = wgt_i[(o*BlockIn+c)*WgtWidth+:WgtWidth];
          p = x * w;
          sum = sum + AccWidth'(p);
        end
        acc_o[(b*BlockOut+o)*AccWidth+:AccWidth] = sum;
      end
    end
  end
endmodule

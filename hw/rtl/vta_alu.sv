// vta_alu - the vector ALU: one operation over the BATCH*BLOCK_OUT lanes of an ACC element.
//
// MIN and MAX compare signed values, ADD and MUL wrap to AccWidth bits. SHR takes its amount
// from the sign-extended low LogAccWidth+1 bits of the operand: a non-negative amount shifts
// right arithmetically, a negative one shifts left by its magnitude, and shifting every bit out
// gives zero (ISA.md section 3, as the functional simulator does). The second operand is either
// the lanes of a second ACC element or the immediate, sign-extended into every lane; the
// compute module selects it a stage earlier (with the operand forwarding), so no multiplexer
// lies between the operand registers and the multiply, and a vector operand costs no extra
// cycle.
module vta_alu
  import vta_pkg::*;
(
  input  logic [AluAluOpcodeW-1:0]     op_i,
  input  logic [AccLanes*AccWidth-1:0] dst_i,
  input  logic [AccLanes*AccWidth-1:0] src_i,
  output logic [AccLanes*AccWidth-1:0] res_o
);
  localparam int unsigned ShW = LogAccWidth + 1;

  always_comb begin
    for (int l = 0; l < AccLanes; l++) begin
      logic signed [AccWidth-1:0] a, b, r;
      logic signed [ShW-1:0] sh;
      a = dst_i[l*AccWidth+:AccWidth];
      b = src_i[l*AccWidth+:AccWidth];
      sh = b[ShW-1:0];
      unique case (op_i)
        AluMin: r = (a < b) ? a : b;
        AluMax: r = (a > b) ? a : b;
        AluAdd: r = a + b;
        AluShr: begin
          if (sh >= 0) r = a >>> sh;
          else r = a << (-sh);
        end
        AluMul: r = a * b;
        default: r = a;
      endcase
      res_o[l*AccWidth+:AccWidth] = r;
    end
  end
endmodule

# GEMM of 2 inputs by 2 weight tiles, then clip to int8
load memory_type=uop dram_base=0 y_size=1 x_size=3 x_stride=3
load memory_type=inp dram_base=16 y_size=1 x_size=2 x_stride=2
load memory_type=wgt dram_base=2 y_size=1 x_size=2 x_stride=2 push_next
gemm reset_reg uop_end=2 iter_out=2 iter_in=1 dst_factor_out=2 src_factor_out=1 pop_prev
gemm uop_end=2 iter_out=2 iter_in=1 dst_factor_out=2 src_factor_out=1
alu alu_opcode=max uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 use_imm imm=-128
alu alu_opcode=min uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 use_imm imm=127 push_next
store memory_type=out dram_base=64 y_size=1 x_size=4 x_stride=4 pop_prev push_prev
load memory_type=uop pop_next    ; a no-op that waits for the store
finish

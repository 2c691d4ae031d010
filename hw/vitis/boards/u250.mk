# Alveo U250 (DDR4, 4 banks of 16 GiB). The accelerator's m_axi_gmem goes to DDR[0].
BOARD_NAME := Alveo U250
BOARD_KIND := alveo
BOARD_PLATFORM := xilinx_u250_gen3x16_xdma_4_1_202210_1
BOARD_PART := xcu250-figd2104-2L-e
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another.
BOARD_CONFIG := configs/vta_default.json
BOARD_MEMORY := DDR[0]
BOARD_BANKS := DDR[0]:16384 DDR[1]:16384 DDR[2]:16384 DDR[3]:16384
# The part's resources (the shell takes part of them: the estimate is compared with the part).
BOARD_LUT := 1728000
BOARD_FF := 3456000
BOARD_DSP := 12288
BOARD_BRAM36 := 2688
BOARD_URAM := 1280

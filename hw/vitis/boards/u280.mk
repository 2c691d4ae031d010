# Alveo U280 (2 DDR4 banks of 16 GiB, and 8 GiB of HBM2 the kernel does not use here). The
# accelerator's m_axi_gmem goes to DDR[0].
BOARD_NAME := Alveo U280
BOARD_KIND := alveo
BOARD_PLATFORM := xilinx_u280_gen3x16_xdma_1_202211_1
BOARD_PART := xcu280-fsvh2892-2L-e
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another.
BOARD_CONFIG := configs/vta_default.json
BOARD_MEMORY := DDR[0]
BOARD_BANKS := DDR[0]:16384 DDR[1]:16384
BOARD_LUT := 1304000
BOARD_FF := 2607000
BOARD_DSP := 9024
BOARD_BRAM36 := 2016
BOARD_URAM := 960

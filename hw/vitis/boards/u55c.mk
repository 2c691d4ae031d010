# Alveo U55C (16 GiB of HBM2 in 32 pseudo-channels of 512 MiB). The accelerator's m_axi_gmem
# goes to HBM[0].
BOARD_NAME := Alveo U55C
BOARD_KIND := alveo
BOARD_PLATFORM := xilinx_u55c_gen3x16_xdma_3_202210_1
BOARD_PART := xcu55c-fsvh2892-2L-e
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another.
BOARD_CONFIG := configs/vta_default.json
BOARD_MEMORY := HBM[0]
BOARD_BANKS := HBM[0]:512:hbm
BOARD_LUT := 1304000
BOARD_FF := 2607000
BOARD_DSP := 9024
BOARD_BRAM36 := 2016
BOARD_URAM := 960

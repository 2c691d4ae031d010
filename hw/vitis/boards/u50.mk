# Alveo U50 (8 GiB of HBM2 in 32 pseudo-channels of 256 MiB). The accelerator's m_axi_gmem goes
# to HBM[0]; buffers are allocated in that pseudo-channel's group.
BOARD_NAME := Alveo U50
BOARD_KIND := alveo
BOARD_PLATFORM := xilinx_u50_gen3x16_xdma_5_202210_1
BOARD_PART := xcu50-fsvh2104-2-e
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another.
BOARD_CONFIG := configs/vta_default.json
BOARD_MEMORY := HBM[0]
BOARD_BANKS := HBM[0]:256:hbm
BOARD_LUT := 872000
BOARD_FF := 1743000
BOARD_DSP := 5952
BOARD_BRAM36 := 1344
BOARD_URAM := 640

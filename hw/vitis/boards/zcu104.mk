# ZCU104 (Zynq UltraScale+ XCZU7EV) on Xilinx's extensible base platform: the kernel's
# m_axi_gmem reaches the PS DDR through an HP port the platform offers; XRT's edge driver
# (zocl) runs on the board's Linux. PLATFORM=/path/to/your.xpfm uses a custom platform.
BOARD_NAME := ZCU104
BOARD_KIND := zynqmp
BOARD_PLATFORM := xilinx_zcu104_base_202220_1
BOARD_PART := xczu7ev-ffvc1156-2-e
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another (128-bit
# bus to the PS DDR, 333 MHz).
BOARD_CONFIG := configs/zcu104.json
BOARD_MEMORY := HP0
BOARD_BANKS := HP0:2048
BOARD_LUT := 230400
BOARD_FF := 460800
BOARD_DSP := 1728
BOARD_BRAM36 := 312
BOARD_URAM := 96

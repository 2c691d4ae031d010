# Kria KV260 (K26 SOM, Zynq UltraScale+ XCK26). AMD ships no prebuilt Vitis platform for it:
# build the extensible platform of the Vitis platform-creation tutorial for KV260 and pass it
# as PLATFORM=/path/to/kv260_custom.xpfm (the name below is that tutorial's).
BOARD_NAME := Kria KV260
BOARD_KIND := zynqmp
BOARD_PLATFORM := kv260_custom
BOARD_PART := xck26-sfvc784-2LV-c
BOARD_FAMILY := xcup
# The accelerator configuration built for the board unless VTA_CONFIG names another.
BOARD_CONFIG := configs/vta_default.json
BOARD_MEMORY := HP0
BOARD_BANKS := HP0:2048
BOARD_LUT := 117120
BOARD_FF := 234240
BOARD_DSP := 1248
BOARD_BRAM36 := 144
BOARD_URAM := 64

# hw/build.mk - checks of the SystemVerilog in hw/rtl (the simulation models are built by
# sim/rtl/build.mk).
#
#   make lint          verilator --lint-only -Wall on every configuration in configs/ and
#                      sim/rtl/configs/, and the default at every bus width from 32 to 1024 bits
#   make synth-check   yosys synth_xilinx on a small configuration: no latches, `check` clean
#   make timing-check  static timing (yosys sta on 7-series cell delays) of the whole design on
#                      the default and the board configurations: critical path, start, end and
#                      instances, resources, and every endpoint later than the limit grouped by
#                      register (endpoints.txt, scripts/rtl-sta-endpoints.py); fails above
#                      TIMING_LIMIT_NS (docs/hw.md, "Timing"). Configurations with the same
#                      hardware (model key) are measured once. About 5 to 8 minutes per
#                      configuration of the default's size here, 2 to 5 for BLOCK 4.
#   (make test runs tests/hw/test_timing: the GEMM datapath alone on configs/block4.json.)

RTL_LINT_CONFIGS := $(wildcard configs/*.json sim/rtl/configs/*.json)
RTL_SYNTH_CONFIG ?= configs/block4.json
TIMING_CONFIGS ?= configs/vta_default.json configs/pynq.json configs/de10nano.json \
  configs/ultra96.json configs/zcu104.json
TIMING_LIMIT_NS ?= 3.0

.PHONY: lint synth-check timing-check
lint: $(BUILD)/bin/vta-svgen
	$(Q)scripts/rtl-lint.sh $(RTL_SVGEN) $(RTL_ROOT) $(RTL_LINT_CONFIGS)

synth-check: $(BUILD)/bin/vta-svgen
	$(Q)scripts/rtl-synth.sh $(RTL_SVGEN) $(RTL_SYNTH_CONFIG) $(RTL_ROOT)

# Prerequisites name the svgen binary itself: RTL_SVGEN is set by sim/rtl/build.mk, which is
# read after this file, so it is still empty when these rule lines are read.
timing-check: $(BUILD)/bin/vta-svgen
	$(Q)scripts/rtl-timing.sh $(RTL_SVGEN) $(TIMING_LIMIT_NS) $(RTL_ROOT) $(TIMING_CONFIGS)

# The timing test runs the script on the generated package of a small configuration.
$(BUILD)/san/tests/hw/test_timing: $(BUILD)/bin/vta-svgen

# ---- FPGA deployment (hw/vitis/, docs/user-guide/deploy.md) ----
#   make xclbin BOARD=u250 [VTA_CONFIG=file.json] [PLATFORM=name|xpfm] [XCLBIN_ESTIMATE=0]
#     (the configuration defaults to the board's, hw/vitis/boards/<board>.mk)
#     writes and checks build/xclbin/<board>/ (kernel.xml, Tcl, link.cfg, a metadata-only
#     xclbin, the yosys resource estimate against the board's part), then packages and links
#     with Vivado and v++ where they are on PATH; without them it stops naming the missing tool.
#   make resource-estimate RTL_CONFIG=file.json [ESTIMATE=xc7|xcu|xcup|xcup-nouram]
#     the estimate alone (scripts/rtl-resources.sh; JSON, kept in $(RTL_ROOT)/resources/)
.PHONY: xclbin resource-estimate
xclbin: $(BUILD)/bin/vta-svgen $(BUILD)/bin/vta-xclbin
	@test -n "$(BOARD)" || { echo "usage: make xclbin BOARD=<board> (boards: $(notdir $(basename $(wildcard hw/vitis/boards/*.mk))))" >&2; exit 2; }
	$(Q)scripts/xclbin-flow.sh $(BOARD) "$(VTA_CONFIG)" $(BUILD)/xclbin/$(BOARD) $(RTL_SVGEN) $(BUILD)/bin/vta-xclbin

resource-estimate: $(BUILD)/bin/vta-svgen
	@test -n "$(RTL_CONFIG)" || { echo "usage: make resource-estimate RTL_CONFIG=file.json [ESTIMATE=xc7|xcu|xcup|xcup-nouram]" >&2; exit 2; }
	$(Q)scripts/rtl-resources.sh $(RTL_SVGEN) $(RTL_CONFIG) $(or $(ESTIMATE),xcup) $(RTL_ROOT)/resources/

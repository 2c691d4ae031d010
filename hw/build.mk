# hw/build.mk - checks of the SystemVerilog in hw/rtl (the simulation models are built by
# sim/rtl/build.mk).
#
#   make lint          verilator --lint-only -Wall on every configuration in configs/ and
#                      sim/rtl/configs/, and the default at every bus width from 32 to 1024 bits
#   make synth-check   yosys synth_xilinx on a small configuration: no latches, `check` clean

RTL_LINT_CONFIGS := $(wildcard configs/*.json sim/rtl/configs/*.json)
RTL_SYNTH_CONFIG ?= configs/block4.json

.PHONY: lint synth-check
lint: $(RTL_SVGEN)
	$(Q)scripts/rtl-lint.sh $(RTL_SVGEN) $(RTL_ROOT) $(RTL_LINT_CONFIGS)

synth-check: $(RTL_SVGEN)
	$(Q)scripts/rtl-synth.sh $(RTL_SVGEN) $(RTL_SYNTH_CONFIG) $(RTL_ROOT)

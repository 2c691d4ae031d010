# hw/build.mk - checks of the SystemVerilog in hw/rtl (the simulation models are built by
# sim/rtl/build.mk).
#
#   make lint          verilator --lint-only -Wall on every configuration in configs/ and
#                      sim/rtl/configs/, and the default at every bus width from 32 to 1024 bits
#   make synth-check   yosys synth_xilinx on a small configuration: no latches, `check` clean
#   make timing-check  static timing (yosys sta on 7-series cell delays) of the whole design on
#                      the default and the board configurations: critical path, start, end and
#                      instances, resources; fails above TIMING_LIMIT_NS (docs/hw.md, "Timing").
#                      Configurations with the same hardware (model key) are measured once.
#                      About half an hour per configuration of the default's size here.
#   (make test runs tests/hw/test_timing: the GEMM datapath alone on configs/block4.json.)

RTL_LINT_CONFIGS := $(wildcard configs/*.json sim/rtl/configs/*.json)
RTL_SYNTH_CONFIG ?= configs/block4.json
TIMING_CONFIGS ?= configs/vta_default.json configs/pynq.json configs/de10nano.json \
  configs/ultra96.json configs/zcu104.json
TIMING_LIMIT_NS ?= 3.0

.PHONY: lint synth-check timing-check
lint: $(RTL_SVGEN)
	$(Q)scripts/rtl-lint.sh $(RTL_SVGEN) $(RTL_ROOT) $(RTL_LINT_CONFIGS)

synth-check: $(RTL_SVGEN)
	$(Q)scripts/rtl-synth.sh $(RTL_SVGEN) $(RTL_SYNTH_CONFIG) $(RTL_ROOT)

timing-check: $(RTL_SVGEN)
	$(Q)scripts/rtl-timing.sh $(RTL_SVGEN) $(TIMING_LIMIT_NS) $(RTL_ROOT) $(TIMING_CONFIGS)

# The timing test runs the script on the generated package of a small configuration.
$(BUILD)/san/tests/hw/test_timing: $(RTL_SVGEN)

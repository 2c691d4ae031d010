# sim/rtl/build.mk - the RTL simulator: the rtl loader joins libvta, each configuration's
# Verilator model is built once into $(BUILD)/rtl/<model key>/ and loaded at run time.
#
#   make rtl-model RTL_CONFIG=file.json   build the model of one configuration
#   make rtl-models                       build the models the tests use
#   make rtl-cov-models                   the same with line+toggle coverage (vta regress --coverage)
#   make regress                          the nightly regression suite (vta regress)
#   make regress-coverage                 the coverage slice of it (line and toggle coverage)

RTL_ROOT := $(abspath $(BUILD))/rtl
RTL_SVGEN := $(BUILD)/bin/vta-svgen
# Configurations whose models the tests need: the default (throughput figures, integration
# tests) and a wide-bus 2x8x8 one (elements narrower than a bus beat: strobes, unaligned rows).
RTL_TEST_CONFIGS := configs/vta_default.json sim/rtl/configs/rtl_wide.json
RTL_TEST_STAMPS := $(RTL_TEST_CONFIGS:%.json=$(RTL_ROOT)/stamp/%.stamp)
# A model depends on the RTL, the harness and whatever shapes the generated package (the field
# table and configuration code of isa/), not on the rest of libvta.
RTL_MODEL_DEPS := $(wildcard hw/rtl/*.sv) sim/rtl/harness.cpp sim/rtl/rtl_model.h sim/rtl/trace.vlt \
  scripts/rtl-model.sh isa/svgen.c isa/svgen.h $(wildcard isa/config.c isa/fields.c) \
  include/vta/isa.h include/vta/config.h include/vta/regmap.h isa/regmap.c
# The rtl tests, and the integration tests that also run their programs on the rtl backend.
RTL_TEST_BINS := $(patsubst %.c,$(BUILD)/san/%,$(wildcard tests/sim/test_rtl*.c \
  tests/host/test_cmd_exec.c tests/host/test_bench_alu.c tests/jit/test_gemm_published.c \
  tests/compiler/test_vta_pool.c tests/compiler/test_vta_chain.c tests/driver/test_published.c tests/host/test_regress.c \
  tests/driver/test_xrt.c tests/host/test_cli_xrt.c))

EXTRA_LIB_OBJS_REL += $(BUILD)/rel/sim/rtl/rtl.o
EXTRA_LIB_OBJS_SAN += $(BUILD)/san/sim/rtl/rtl.o
EXTRA_LIBS += -ldl

# The loader looks for models under this build's folder unless told otherwise.
$(BUILD)/rel/sim/rtl/rtl.o: REL_CFLAGS += -DVTA_RTL_MODEL_ROOT='"$(RTL_ROOT)"' \
  -DVTA_RTL_COV_MODEL_ROOT='"$(abspath $(BUILD))/rtl-cov"'
$(BUILD)/san/sim/rtl/rtl.o: SAN_CFLAGS += -DVTA_RTL_MODEL_ROOT='"$(RTL_ROOT)"' \
  -DVTA_RTL_COV_MODEL_ROOT='"$(abspath $(BUILD))/rtl-cov"'
# The backend table lists the rtl backend when this fragment is part of the build.
$(BUILD)/rel/driver/device.o $(BUILD)/rel/driver/backend_rtl.o $(BUILD)/rel/driver/diff.o: REL_CFLAGS += -DVTA_HAVE_RTL
$(BUILD)/san/driver/device.o $(BUILD)/san/driver/backend_rtl.o $(BUILD)/san/driver/diff.o: SAN_CFLAGS += -DVTA_HAVE_RTL

# (The top Makefile defines LIBA after including this fragment: name the archive directly.)
$(RTL_SVGEN): $(BUILD)/rel/sim/rtl/svgen_main.o $(BUILD)/lib/libvta.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) -o $@ $^ $(EXTRA_LIBS) $(DEP_LIBS)

$(RTL_ROOT)/stamp/%.stamp: %.json $(RTL_MODEL_DEPS) | $(RTL_SVGEN)
	@mkdir -p $(dir $@)
	@echo "  VERILATOR $<"
	$(Q)scripts/rtl-model.sh $(RTL_SVGEN) $< $(RTL_ROOT) >/dev/null
	$(Q)touch $@

# The rtl tests need the models of the test configurations.
$(RTL_TEST_BINS): $(RTL_TEST_STAMPS)

# The same models with line and toggle coverage, for `vta regress --coverage` (slower to build
# and to run; only regressions that ask for coverage use them).
RTL_COV_ROOT := $(abspath $(BUILD))/rtl-cov
RTL_COV_CONFIGS := $(RTL_TEST_CONFIGS) configs/batch4.json configs/block8.json
$(RTL_COV_ROOT)/stamp/%.stamp: %.json $(RTL_MODEL_DEPS) | $(RTL_SVGEN)
	@mkdir -p $(dir $@)
	@echo "  VERILATOR (coverage) $<"
	$(Q)RTL_COVERAGE=1 scripts/rtl-model.sh $(RTL_SVGEN) $< $(RTL_COV_ROOT) >/dev/null
	$(Q)touch $@

.PHONY: rtl-model rtl-models rtl-cov-models regress regress-coverage
rtl-cov-models: $(RTL_COV_CONFIGS:%.json=$(RTL_COV_ROOT)/stamp/%.stamp)
rtl-models: $(RTL_TEST_STAMPS)
rtl-model: $(RTL_SVGEN)
	@test -n "$(RTL_CONFIG)" || { echo "usage: make rtl-model RTL_CONFIG=file.json" >&2; exit 2; }
	$(Q)scripts/rtl-model.sh $(RTL_SVGEN) $(RTL_CONFIG) $(RTL_ROOT)

# The nightly regression (`vta regress --suite nightly`, docs/user-guide/regress.md): fsim, rtl
# (and sc once built) against fsim on 25,000 random programs per configuration and backend over
# four configurations, whose models it builds first. JUnit in $(BUILD)/regress/nightly.xml,
# waveforms of failing rtl cases in $(BUILD)/regress/waves. REGRESS_ARGS adds options (for
# example --seed-start N to repeat a night, or --time-budget S).
RTL_REGRESS_CONFIGS := configs/batch4.json configs/block8.json
regress: $(VTA) $(RTL_TEST_STAMPS) $(RTL_REGRESS_CONFIGS:%.json=$(RTL_ROOT)/stamp/%.stamp)
	@mkdir -p $(BUILD)/regress
	$(Q)$(VTA) regress --suite nightly --junit $(BUILD)/regress/nightly.xml \
	  --wave-dir $(BUILD)/regress/waves $(REGRESS_ARGS)

# The coverage regression (docs/user-guide/regress.md, "Coverage"): the slice of the nightly in
# scripts/regress-coverage.json (the rtl cases of the two test configurations, behind the
# normal and a slow memory) on the coverage models; the merged data, the per-module table and
# the annotated sources in $(BUILD)/regress-cov/cov.
RTL_COV_SLICE_CONFIGS := $(RTL_TEST_CONFIGS)
regress-coverage: $(VTA) $(RTL_COV_SLICE_CONFIGS:%.json=$(RTL_COV_ROOT)/stamp/%.stamp)
	@rm -rf $(BUILD)/regress-cov/cov && mkdir -p $(BUILD)/regress-cov
	$(Q)$(VTA) regress --suite scripts/regress-coverage.json -j 2 \
	  --coverage $(BUILD)/regress-cov/cov --junit $(BUILD)/regress-cov/cov.xml \
	  --wave-dir $(BUILD)/regress-cov/waves $(REGRESS_ARGS)

# sim/rtl/build.mk - the RTL simulator: the rtl loader joins libvta, each configuration's
# Verilator model is built once into $(BUILD)/rtl/<model key>/ and loaded at run time.
#
#   make rtl-model RTL_CONFIG=file.json   build the model of one configuration
#   make rtl-models                       build the models the tests use
#   make regress                          the long fsim-versus-rtl differential regression

RTL_ROOT := $(abspath $(BUILD))/rtl
RTL_SVGEN := $(BUILD)/bin/vta-svgen
# Configurations whose models the tests need: the default (throughput figures, integration
# tests) and a wide-bus 2x8x8 one (elements narrower than a bus beat: strobes, unaligned rows).
RTL_TEST_CONFIGS := configs/vta_default.json sim/rtl/configs/rtl_wide.json
RTL_TEST_STAMPS := $(RTL_TEST_CONFIGS:%.json=$(RTL_ROOT)/stamp/%.stamp)
# A model depends on the RTL, the harness and whatever shapes the generated package (the field
# table and configuration code of isa/), not on the rest of libvta.
RTL_MODEL_DEPS := $(wildcard hw/rtl/*.sv) sim/rtl/harness.cpp sim/rtl/rtl_model.h \
  scripts/rtl-model.sh isa/svgen.c isa/svgen.h $(wildcard isa/config.c isa/fields.c) \
  include/vta/isa.h include/vta/config.h include/vta/regmap.h isa/regmap.c
# The rtl tests, and the integration tests that also run their programs on the rtl backend.
RTL_TEST_BINS := $(patsubst %.c,$(BUILD)/san/%,$(wildcard tests/sim/test_rtl*.c \
  tests/host/test_cmd_exec.c tests/host/test_bench_alu.c tests/jit/test_gemm_published.c \
  tests/driver/test_published.c tests/driver/test_xrt.c tests/host/test_cli_xrt.c))

EXTRA_LIB_OBJS_REL += $(BUILD)/rel/sim/rtl/rtl.o
EXTRA_LIB_OBJS_SAN += $(BUILD)/san/sim/rtl/rtl.o
EXTRA_LIBS += -ldl

# The loader looks for models under this build's folder unless told otherwise.
$(BUILD)/rel/sim/rtl/rtl.o: REL_CFLAGS += -DVTA_RTL_MODEL_ROOT='"$(RTL_ROOT)"'
$(BUILD)/san/sim/rtl/rtl.o: SAN_CFLAGS += -DVTA_RTL_MODEL_ROOT='"$(RTL_ROOT)"'
# The backend table lists the rtl backend when this fragment is part of the build.
$(BUILD)/rel/driver/device.o $(BUILD)/rel/driver/backend_rtl.o: REL_CFLAGS += -DVTA_HAVE_RTL
$(BUILD)/san/driver/device.o $(BUILD)/san/driver/backend_rtl.o: SAN_CFLAGS += -DVTA_HAVE_RTL

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

.PHONY: rtl-model rtl-models regress
rtl-models: $(RTL_TEST_STAMPS)
rtl-model: $(RTL_SVGEN)
	@test -n "$(RTL_CONFIG)" || { echo "usage: make rtl-model RTL_CONFIG=file.json" >&2; exit 2; }
	$(Q)scripts/rtl-model.sh $(RTL_SVGEN) $(RTL_CONFIG) $(RTL_ROOT)

# Many more random programs than `make test` runs: VTA_RTL_PROGRAMS (default 3000) per test of
# test_rtl_diff (three serialised, four concurrent: 21,000 programs), and the same
# on the configurations below, whose models it builds first (36,000 programs in all, about 3
# minutes on one core once the models exist); then as many random programs of GEMM and ALU
# instructions that the compute module may run side by side (test_rtl, about a minute more).
RTL_REGRESS_CONFIGS := configs/batch4.json configs/block8.json
regress: $(BUILD)/san/tests/sim/test_rtl_diff $(BUILD)/san/tests/sim/test_rtl \
  $(RTL_REGRESS_CONFIGS:%.json=$(RTL_ROOT)/stamp/%.stamp)
	$(Q)VTA_RTL_PROGRAMS=$${VTA_RTL_PROGRAMS:-3000} VTA_RTL_EXTRA_CONFIGS="$(RTL_REGRESS_CONFIGS)" \
	  VTA_TEST_TIMEOUT=$${VTA_TEST_TIMEOUT:-3600} scripts/run-tests.sh \
	  $(BUILD)/san/tests/sim/test_rtl_diff $(BUILD)/san/tests/sim/test_rtl

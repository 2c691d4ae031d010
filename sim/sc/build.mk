# sim/sc/build.mk - the SystemC performance model (`--backend sc`): C++17 against Debian's
# libsystemc-dev (pkg-config systemc), compiled into libvta beside the C simulators.
#
# The model's C++ objects join libvta (release and sanitized builds), so every program linked
# with libvta (the vta tool, the tests) has the sc backend; the link adds -lsystemc.

SC_PKG_CFLAGS := $(shell pkg-config --cflags systemc 2>/dev/null)
SC_PKG_LIBS := $(shell pkg-config --libs systemc 2>/dev/null)
SC_CXXFLAGS := -std=c++17 -fPIC -Iinclude -I. -Wall -Wextra -Werror -Wno-unused-parameter \
  $(SC_PKG_CFLAGS)

EXTRA_LIB_OBJS_REL += $(BUILD)/rel/sim/sc/sc_model.o
EXTRA_LIB_OBJS_SAN += $(BUILD)/san/sim/sc/sc_model.o
EXTRA_LIB_OBJS_FUZZ += $(BUILD)/fuzz/sim/sc/sc_model.o
# libsystemc.so refers to sc_main, defined by sc_model.o: a harness that never reaches the
# device would not pull that member out of the static fuzzing archive by itself.
FUZZ_LDFLAGS += -Wl,--undefined=sc_main
EXTRA_LIBS += $(if $(SC_PKG_LIBS),$(SC_PKG_LIBS),-lsystemc) -lstdc++
LIB_SRCS += sim/sc/sc.c

# The backend table lists the sc backend when this fragment is part of the build.
$(BUILD)/rel/driver/device.o $(BUILD)/rel/driver/backend_sc.o: REL_CFLAGS += -DVTA_HAVE_SC
$(BUILD)/san/driver/device.o $(BUILD)/san/driver/backend_sc.o: SAN_CFLAGS += -DVTA_HAVE_SC
$(BUILD)/fuzz/driver/device.o $(BUILD)/fuzz/driver/backend_sc.o: FUZZ_CFLAGS += -DVTA_HAVE_SC

# pkg-config is asked when the model is compiled: an empty answer names the package to install
# (make test runs scripts/deps.sh first, which installs it from scripts/deps.list).
sc-check-systemc:
	@pkg-config --exists systemc || { echo "sim/sc: pkg-config finds no systemc: install Debian's libsystemc-dev (scripts/deps.sh does)" >&2; exit 1; }
.PHONY: sc-check-systemc

$(BUILD)/rel/sim/sc/sc_model.o: sim/sc/sc_model.cpp sim/sc/sc_model.h include/vta/config.h | sc-check-systemc
	@mkdir -p $(dir $@)
	$(Q)$(CXX) $(SC_CXXFLAGS) -O2 -g -MMD -MP -c $< -o $@
$(BUILD)/san/sim/sc/sc_model.o: sim/sc/sc_model.cpp sim/sc/sc_model.h include/vta/config.h | sc-check-systemc
	@mkdir -p $(dir $@)
	$(Q)$(CXX) $(SC_CXXFLAGS) -O1 -g $(SAN_FLAGS) -MMD -MP -c $< -o $@

# The fuzzing build (tests/fuzz/build.mk) compiles it with clang and the fuzzers' sanitizers.
$(BUILD)/fuzz/sim/sc/sc_model.o: sim/sc/sc_model.cpp sim/sc/sc_model.h include/vta/config.h | sc-check-systemc
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CXX) $(SC_CXXFLAGS) -Wno-unknown-warning-option -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c $< -o $@

# The calibration test runs its programs on the rtl backend too: it needs the test models.
$(BUILD)/san/tests/sim/test_sc: $(abspath $(BUILD))/rtl/stamp/configs/vta_default.stamp \
  $(abspath $(BUILD))/rtl/stamp/sim/rtl/configs/rtl_wide.stamp

# driver/build.mk - the xrt backend (driver/xrt/), built when XRT's development files are
# installed (Debian's libxrt-dev and uuid-dev; scripts/deps.list installs them for `make test`).
#
# XRT 2.13's `pkg-config xrt` is broken: the headers are used from /usr/include/xrt and only
# libxrt_coreutil is linked (libxrt_core would bind the library to the PCIe device layer and
# defeat XRT's noop emulation, which loads its own layer from $XILINX_XRT/lib at run time).
#
#   make xclbin-meta CONFIG=file.json OUT=file.xclbin   a metadata-only xclbin (no bitstream)

XRT_INCLUDE := /usr/include/xrt
XRT_FOUND := $(and $(wildcard $(XRT_INCLUDE)/xrt/xrt_kernel.h),$(wildcard $(XRT_INCLUDE)/xclbin.h),$(wildcard /usr/include/uuid/uuid.h),$(wildcard /usr/lib/*/libxrt_coreutil.so))
XRT_SRCS := $(wildcard driver/xrt/*.c)
XRT_TOOL := $(BUILD)/bin/vta-xclbin

ifneq ($(XRT_FOUND),)
XRT_LIB_SRCS := $(filter-out driver/xrt/xclbin_main.c,$(XRT_SRCS))
EXTRA_LIB_OBJS_REL += $(XRT_LIB_SRCS:%.c=$(BUILD)/rel/%.o)
EXTRA_LIB_OBJS_SAN += $(XRT_LIB_SRCS:%.c=$(BUILD)/san/%.o)
EXTRA_LIBS += -lxrt_coreutil -luuid
$(XRT_SRCS:%.c=$(BUILD)/rel/%.o): REL_CFLAGS += -I$(XRT_INCLUDE)
$(XRT_SRCS:%.c=$(BUILD)/san/%.o): SAN_CFLAGS += -I$(XRT_INCLUDE)
# The backend table lists xrt only when it is built.
$(BUILD)/rel/driver/device.o: REL_CFLAGS += -DVTA_HAVE_XRT
$(BUILD)/san/driver/device.o: SAN_CFLAGS += -DVTA_HAVE_XRT
$(XRT_TOOL): $(BUILD)/rel/driver/xrt/xclbin_main.o $(BUILD)/lib/libvta.a
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -o $@ $^ $(EXTRA_LIBS) $(DEP_LIBS)
tests: $(XRT_TOOL)
else
$(XRT_TOOL):
	@echo "vta-xclbin needs XRT's development files (Debian: libxrt-dev, uuid-dev; scripts/deps.sh installs them)" >&2; exit 1
endif

# The xrt tests know whether the backend is built (without it they check the refusal's words).
ifneq ($(XRT_FOUND),)
$(BUILD)/san/tests/driver/test_xrt.o $(BUILD)/san/tests/host/test_cli_xrt.o $(BUILD)/san/tests/hw/test_xclbin_flow.o: SAN_CFLAGS += -DVTA_TEST_HAVE_XRT
$(BUILD)/san/tests/hw/test_xclbin_flow: $(XRT_TOOL) $(BUILD)/bin/vta-svgen
endif

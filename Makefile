# Makefile - one non-recursive build of the whole project into build/.
#
#   make            library, the vta tool (build/bin/vta)
#   make run        install missing packages, build, run the demonstration, the GEMM benchmark
#                   and two real ONNX models (text orientation, face detection) on real pictures
#   make test       install missing packages, build everything with ASan+UBSan, run every test;
#                   ends with the line "N passed, N failed, N skipped" (skipped tests listed)
#   make fuzz       libFuzzer harnesses of every input format, each FUZZ_SECONDS (tests/fuzz/build.mk)
#   make install PREFIX=DIR
#
# Sources are found by wildcard: a new .c file in a library folder joins libvta, a new
# tests/<area>/test_<name>.c becomes its own test executable. Areas with special needs (code
# generators, C++ simulators, extra libraries) add a <area>/build.mk fragment, included below.

PREFIX ?= /usr/local
CC ?= gcc
CXX ?= g++
BUILD := build
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

# cJSON headers live in /usr/include/cjson on Debian.
DEP_CFLAGS := -I/usr/include/cjson
DEP_LIBS := -lcjson -lm -lpthread

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -Iinclude -I. -I$(BUILD)/gen $(DEP_CFLAGS) $(WARN)
REL_CFLAGS := $(BASE_CFLAGS) -O2 -g $(CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
SAN_CFLAGS := $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -DVTA_TEST_BUILD=1 $(CFLAGS)

LIB_DIRS := isa sim/mem sim/fsim sim/gen sim/trace driver jit runtime
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
HOST_SRCS := $(wildcard host/*.c)
TEST_SRCS := $(wildcard tests/*/test_*.c tests/*/*/test_*.c)
TEST_SUPPORT_SRCS := $(filter-out $(TEST_SRCS),$(wildcard tests/support/*.c))
EXTRA_LIB_OBJS_REL :=
EXTRA_LIB_OBJS_SAN :=
EXTRA_LIBS :=
# Archives and link flags only the vta tool and the tests need (the compiler, C++ simulators).
EXTRA_HOST_LIBS_REL :=
EXTRA_HOST_LIBS_SAN :=
EXTRA_HOST_LDLIBS :=
GEN_HEADERS :=

# The fragments define rules of their own: `make` with no target must still mean `make all`.
.DEFAULT_GOAL := all

# A tool the build finds with a $(shell ...) probe must never be silently absent. Each area
# declares its probes with
#   $(eval $(call need_tool,NAME,$(PROBE_RESULT),WHAT IS MISSING (Debian package PKG)))
# and makes the targets that use it depend on `need-NAME` (order-only). The check runs when such a
# target is built, not when the Makefile is read, so that `make test` and `make run` can first
# install the packages (deps.sh) on a fresh machine and then build.
comma := ,
define need_tool
.PHONY: need-$(1)
need-$(1):
	@$(if $(strip $(2)),:,echo "make: $(3) was not found. Run scripts/deps.sh as root (make test and make run do) to install it." >&2; exit 1)
endef

-include $(wildcard */build.mk sim/*/build.mk tests/*/build.mk)

REL_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/rel/%.o) $(EXTRA_LIB_OBJS_REL)
SAN_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/san/%.o) $(EXTRA_LIB_OBJS_SAN)
REL_HOST_OBJS := $(HOST_SRCS:%.c=$(BUILD)/rel/%.o)
SAN_HOST_OBJS := $(HOST_SRCS:%.c=$(BUILD)/san/%.o)
SAN_SUPPORT_OBJS := $(TEST_SUPPORT_SRCS:%.c=$(BUILD)/san/%.o)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/san/%)

LIBA := $(BUILD)/lib/libvta.a
LIBSO := $(BUILD)/lib/libvta.so
SAN_LIBA := $(BUILD)/san/libvta.a
VTA := $(BUILD)/bin/vta
SAN_VTA := $(BUILD)/san/bin/vta
LIBS := $(EXTRA_LIBS) $(DEP_LIBS)

.PHONY: all run test tests install clean deps demo bench
all: $(LIBA) $(LIBSO) $(VTA)

deps:
	$(Q)scripts/deps.sh

$(BUILD)/rel/%.o: %.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(REL_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/san/%.o: %.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_CFLAGS) -MMD -MP -c $< -o $@

$(LIBA): $(REL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSO): $(REL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -o $@ $^ $(LIBS)
$(SAN_LIBA): $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(VTA): $(REL_HOST_OBJS) $(EXTRA_HOST_LIBS_REL) $(LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -o $@ $(REL_HOST_OBJS) $(EXTRA_HOST_LIBS_REL) $(LIBA) $(EXTRA_HOST_LDLIBS) $(LIBS)
$(SAN_VTA): $(SAN_HOST_OBJS) $(EXTRA_HOST_LIBS_SAN) $(SAN_LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $(SAN_HOST_OBJS) $(EXTRA_HOST_LIBS_SAN) $(SAN_LIBA) $(EXTRA_HOST_LDLIBS) $(LIBS)

# Each test is its own executable, linked with the sanitized library, the host objects except
# main (so CLI code can be tested in-process) and the shared test support code.
SAN_HOST_NOMAIN := $(filter-out $(BUILD)/san/host/main.o,$(SAN_HOST_OBJS))
$(BUILD)/san/tests/%.o: tests/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_CFLAGS) -Itests -MMD -MP -c $< -o $@
$(BUILD)/san/tests/%: $(BUILD)/san/tests/%.o $(SAN_SUPPORT_OBJS) $(SAN_HOST_NOMAIN) $(EXTRA_HOST_LIBS_SAN) $(SAN_LIBA)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $< $(SAN_SUPPORT_OBJS) $(SAN_HOST_NOMAIN) $(EXTRA_HOST_LIBS_SAN) $(SAN_LIBA) -lcmocka $(EXTRA_HOST_LDLIBS) $(LIBS)

tests: $(TEST_BINS) $(SAN_VTA) $(VTA) $(LIBA) $(LIBSO)

test: deps
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) tests
	$(Q)VTA_BUILD=$(BUILD) VTA_BIN=$(abspath $(SAN_VTA)) scripts/run-tests.sh $(TEST_BINS)

demo: $(VTA)
	$(Q)$(VTA) demo

bench: $(VTA)
	$(Q)$(VTA) bench gemm

run: deps
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) all
	$(Q)$(VTA) demo
	$(Q)$(VTA) bench gemm
	$(Q)scripts/run-model-demo.sh $(VTA) $(BUILD)/demo

install: all
	install -d $(PREFIX)/include/vta $(PREFIX)/lib/pkgconfig $(PREFIX)/bin
	install -m 644 include/vta/*.h $(PREFIX)/include/vta/
	install -m 644 $(LIBA) $(PREFIX)/lib/
	install -m 755 $(LIBSO) $(PREFIX)/lib/
	install -m 755 $(VTA) $(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@LIBS@|$(LIBS)|' scripts/vta.pc.in \
	  > $(PREFIX)/lib/pkgconfig/vta.pc

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

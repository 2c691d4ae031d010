# runtime/build.mk - the library cross-built for a board's CPU: the model runtime, jit/, driver/
# and the simulators, without the compiler and without LLVM, for deployed models
# (`vta compile --emit lib --triple ...`) to link with.
#
#   make cross [CROSS=aarch64-linux-gnu]                 $(BUILD)/<CROSS>/lib/libvta.a
#   make install-cross PREFIX=DIR [CROSS=...]            headers, libvta.a and vta.pc under DIR
#
# Debian has no cross-built cJSON, so the cross library leaves JSON configurations aside: a
# deployed model carries its hardware configuration as numbers (runtime/plan.h), objects are
# built with one section per function and programs link with --gc-sections (vta.pc says so),
# which drops the unused configuration parser and its references to cJSON.

CROSS ?= aarch64-linux-gnu
CROSS_CC := $(CROSS)-gcc
CROSS_AR := $(CROSS)-ar
CROSS_DIR := $(BUILD)/$(CROSS)
CROSS_OBJS := $(patsubst %.c,$(CROSS_DIR)/obj/%.o,$(LIB_SRCS) sim/rtl/rtl.c)
CROSS_LIBA := $(CROSS_DIR)/lib/libvta.a
CROSS_CFLAGS := $(BASE_CFLAGS) -O2 -g -ffunction-sections -fdata-sections

.PHONY: cross install-cross cross-check
cross: $(CROSS_LIBA)

cross-check:
	@command -v $(CROSS_CC) >/dev/null 2>&1 || { echo "make cross: $(CROSS_CC) not found: install \
	gcc-$(CROSS) (listed in scripts/deps.list; \`make deps\` installs it)" >&2; exit 1; }

$(CROSS_DIR)/obj/%.o: %.c $(GEN_HEADERS) | cross-check
	@mkdir -p $(dir $@)
	$(Q)$(CROSS_CC) $(CROSS_CFLAGS) -MMD -MP -c $< -o $@

$(CROSS_LIBA): $(CROSS_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(CROSS_AR) rcs $@ $^

install-cross: $(CROSS_LIBA)
	install -d $(PREFIX)/include/vta $(PREFIX)/lib/pkgconfig
	install -m 644 include/vta/*.h $(PREFIX)/include/vta/
	install -m 644 $(CROSS_LIBA) $(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@CROSS@|$(CROSS)|' scripts/vta-cross.pc.in \
	  > $(PREFIX)/lib/pkgconfig/vta.pc
tests: $(CROSS_LIBA)

# compiler/build.mk - the ONNX compiler: its own archive, kept out of libvta so that the library
# needs neither LLVM nor protobuf-c; only the vta tool and the tests link it.
#
# onnx.proto comes from Debian's libonnx-dev and is turned into C by protoc-c at build time
# (into $(BUILD)/gen/onnx/), so the schema always matches the installed ONNX release.

ONNX_PROTO := /usr/include/onnx/onnx.proto
# Debian names LLVM's tools by version (llvm-14-dev brings llvm-config-14 and the versioned folder;
# the unversioned llvm-config comes only with the convenience package `llvm`). LLVM_CONFIG=... picks
# another one.
LLVM_CONFIG ?= $(firstword $(shell command -v llvm-config-14 2>/dev/null) \
  $(wildcard /usr/lib/llvm-14/bin/llvm-config))
LLVM_CFLAGS := $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --cflags 2>/dev/null))
LLVM_LIBS := $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --ldflags --libs core orcjit native passes \
  bitreader bitwriter 2>/dev/null))
PROTOC_C := $(shell command -v protoc-c 2>/dev/null)
$(eval $(call need_tool,llvm,$(and $(LLVM_CFLAGS),$(LLVM_LIBS)),LLVM 14 (llvm-config-14$(comma) Debian package llvm-14-dev)))
$(eval $(call need_tool,protoc-c,$(PROTOC_C),protoc-c (Debian package protobuf-c-compiler)))
$(eval $(call need_tool,onnx-proto,$(wildcard $(ONNX_PROTO)),$(ONNX_PROTO) (Debian package libonnx-dev)))

COMPILER_SRCS := $(wildcard compiler/*.c compiler/*/*.c)
COMPILER_GEN := $(BUILD)/gen/onnx/onnx.pb-c.c
COMPILER_GEN_H := $(BUILD)/gen/onnx/onnx.pb-c.h
COMPILER_REL_OBJS := $(COMPILER_SRCS:%.c=$(BUILD)/rel/%.o) $(BUILD)/rel/gen/onnx/onnx.pb-c.o
COMPILER_SAN_OBJS := $(COMPILER_SRCS:%.c=$(BUILD)/san/%.o) $(BUILD)/san/gen/onnx/onnx.pb-c.o
COMPILER_LIBA := $(BUILD)/lib/libvtacompiler.a
COMPILER_SAN_LIBA := $(BUILD)/san/libvtacompiler.a

GEN_HEADERS += $(COMPILER_GEN_H)
EXTRA_HOST_LIBS_REL += $(COMPILER_LIBA)
EXTRA_HOST_LIBS_SAN += $(COMPILER_SAN_LIBA)
EXTRA_HOST_LDLIBS += $(LLVM_LIBS) -lprotobuf-c

$(COMPILER_GEN) $(COMPILER_GEN_H): $(wildcard $(ONNX_PROTO)) | need-protoc-c need-onnx-proto
	@mkdir -p $(BUILD)/gen/onnx
	$(Q)$(PROTOC_C) --c_out=$(BUILD)/gen/onnx -I$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

# The generated file is not ours to keep warning-free; the compiler's own files see LLVM's headers.
$(BUILD)/rel/gen/onnx/%.o: $(BUILD)/gen/onnx/%.c $(COMPILER_GEN_H)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(REL_CFLAGS) -Wno-error -c $< -o $@
$(BUILD)/san/gen/onnx/%.o: $(BUILD)/gen/onnx/%.c $(COMPILER_GEN_H)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_CFLAGS) -Wno-error -c $< -o $@
$(BUILD)/rel/compiler/%.o: compiler/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(REL_CFLAGS) $(LLVM_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/san/compiler/%.o: compiler/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(SAN_CFLAGS) $(LLVM_CFLAGS) -MMD -MP -c $< -o $@

# Every compiler object sees LLVM's headers, and the tool links LLVM: check it once, first.
$(COMPILER_REL_OBJS) $(COMPILER_SAN_OBJS): | need-llvm

$(COMPILER_LIBA): $(COMPILER_REL_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(COMPILER_SAN_LIBA): $(COMPILER_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

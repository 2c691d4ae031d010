# compiler/build.mk - the ONNX compiler: its own archive, kept out of libvta so that the library
# needs neither LLVM nor protobuf-c; only the vta tool and the tests link it.
#
# onnx.proto comes from Debian's libonnx-dev and is turned into C by protoc-c at build time
# (into $(BUILD)/gen/onnx/), so the schema always matches the installed ONNX release.

ONNX_PROTO := /usr/include/onnx/onnx.proto
LLVM_CONFIG ?= llvm-config
LLVM_CFLAGS := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null)
LLVM_LIBS := $(shell $(LLVM_CONFIG) --ldflags --libs core orcjit native passes bitreader bitwriter 2>/dev/null)

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

$(COMPILER_GEN) $(COMPILER_GEN_H): $(ONNX_PROTO)
	@mkdir -p $(BUILD)/gen/onnx
	$(Q)protoc-c --c_out=$(BUILD)/gen/onnx -I$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

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

$(COMPILER_LIBA): $(COMPILER_REL_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(COMPILER_SAN_LIBA): $(COMPILER_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# tests/fuzz/build.mk - coverage-guided fuzzing with clang 14's libFuzzer (docs/fuzzing.md).
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_ONLY=name]   build the harnesses and run each in turn for N
#                                                 seconds (default 600), niced; prints one JSON
#                                                 line per harness (executions/s, edges, crashes)
#   make fuzz-build                               only build build/fuzz/bin/fuzz_<name>
#
# The whole library, the compiler and the host code are compiled a third time, by clang with
# -fsanitize=fuzzer-no-link,address,undefined, into $(BUILD)/fuzz/; only `make fuzz` builds
# them. `make test` does not need libFuzzer: tests/fuzz/test_fuzz_<name>.c links the same
# harness with a replay main (replay.h) and runs the committed corpus and crash reproducers.

FUZZ_CC := clang-14
FUZZ_CXX := clang++-14
FUZZ_SECONDS ?= 600
FUZZ_ONLY ?=
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = $(filter-out -Werror,$(BASE_CFLAGS)) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
  -DVTA_TEST_BUILD=1 -Itests $(LLVM_CFLAGS) -Wno-unknown-warning-option
FUZZ_LIB_SRCS = $(LIB_SRCS) $(filter-out host/main.c,$(HOST_SRCS)) $(COMPILER_SRCS)
FUZZ_OBJS = $(FUZZ_LIB_SRCS:%.c=$(BUILD)/fuzz/%.o) $(BUILD)/fuzz/gen/onnx/onnx.pb-c.o $(EXTRA_LIB_OBJS_FUZZ)
FUZZ_LIBA := $(BUILD)/fuzz/libvtafuzz.a
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/bin/fuzz_%)

$(eval $(call need_tool,clang-14,$(shell command -v $(FUZZ_CC) 2>/dev/null),$(FUZZ_CC) (Debian package clang-14)))
$(eval $(call need_tool,libfuzzer,$(wildcard /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a),libFuzzer (Debian package libclang-rt-14-dev)))

.PHONY: fuzz fuzz-build
$(BUILD)/fuzz/gen/onnx/%.o: $(BUILD)/gen/onnx/%.c $(COMPILER_GEN_H) | need-clang-14 need-libfuzzer need-llvm
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-error -c $< -o $@
$(BUILD)/fuzz/%.o: %.c $(GEN_HEADERS) | need-clang-14 need-libfuzzer need-llvm
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_LIBA): $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/fuzz/bin/fuzz_%: $(BUILD)/fuzz/tests/fuzz/fuzz_%.o $(FUZZ_LIBA)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CXX) -fsanitize=fuzzer $(FUZZ_SAN) $(FUZZ_LDFLAGS) -o $@ $< $(FUZZ_LIBA) $(EXTRA_HOST_LDLIBS) $(LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) fuzz-build $(VTA)
	$(Q)VTA_BIN=$(VTA) scripts/fuzz-seeds.sh $(BUILD)/fuzz/seeds
	$(Q)scripts/fuzz.sh $(BUILD)/fuzz $(FUZZ_SECONDS) $(if $(FUZZ_ONLY),$(FUZZ_ONLY),$(FUZZ_NAMES))

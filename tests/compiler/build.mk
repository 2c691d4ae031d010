# tests/compiler/build.mk - what the tests of compiler/ need beyond the default rule.
#
# test_zoo runs the sanitized vta (`vta bench model` and `vta compile --const-input` on Silero).
$(BUILD)/san/tests/compiler/test_zoo: | $(BUILD)/san/bin/vta

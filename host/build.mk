# host/build.mk - what the tests of host/ need beyond the default rule.
#
# test_sweep runs the sanitized vta and, for its resource estimates, vta-svgen (named literally:
# sim/rtl/build.mk, which defines RTL_SVGEN, is included after this fragment).
$(BUILD)/san/tests/host/test_sweep: | $(BUILD)/bin/vta-svgen $(BUILD)/san/bin/vta

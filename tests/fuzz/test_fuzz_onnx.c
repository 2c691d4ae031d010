/* test_fuzz_onnx.c - replays the onnx harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_onnx.c, run by `make fuzz`). */
#define FUZZ_NAME "onnx"
#include "fuzz/replay.h"
#include "fuzz/fuzz_onnx.c"

/* test_fuzz_bundle.c - replays the bundle harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_bundle.c, run by `make fuzz`). */
#define FUZZ_NAME "bundle"
#include "fuzz/replay.h"
#include "fuzz/fuzz_bundle.c"

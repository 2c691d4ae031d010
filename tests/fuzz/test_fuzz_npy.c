/* test_fuzz_npy.c - replays the npy harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_npy.c, run by `make fuzz`). */
#define FUZZ_NAME "npy"
#include "fuzz/replay.h"
#include "fuzz/fuzz_npy.c"

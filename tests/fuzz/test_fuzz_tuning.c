/* test_fuzz_tuning.c - replays the tuning harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_tuning.c, run by `make fuzz`). */
#define FUZZ_NAME "tuning"
#include "fuzz/replay.h"
#include "fuzz/fuzz_tuning.c"

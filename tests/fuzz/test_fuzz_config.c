/* test_fuzz_config.c - replays the config harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_config.c, run by `make fuzz`). */
#define FUZZ_NAME "config"
#include "fuzz/replay.h"
#include "fuzz/fuzz_config.c"

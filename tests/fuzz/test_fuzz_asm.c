/* test_fuzz_asm.c - replays the asm harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_asm.c, run by `make fuzz`). */
#define FUZZ_NAME "asm"
#include "fuzz/replay.h"
#include "fuzz/fuzz_asm.c"

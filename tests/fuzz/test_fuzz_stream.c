/* test_fuzz_stream.c - replays the stream harness's regression corpus and crash reproducers
 * (see replay.h; the harness is fuzz_stream.c, run by `make fuzz`). */
#define FUZZ_NAME "stream"
#include "fuzz/replay.h"
#include "fuzz/fuzz_stream.c"

/* fuzz_config.c - hardware configuration JSON (isa/config.c): parse, validate, derive. A
 * configuration that is accepted must have consistent derived values and print. */
#include "fuzz/fuzz.h"

#include "vta/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  if (!text) return 0;
  vta_config cfg;
  vta_error err;
  if (vta_config_parse(&cfg, text, "fuzz.json", &err) == VTA_OK) {
    /* What every consumer relies on of an accepted configuration. */
    FUZZ_CHECK(cfg.macs_per_cycle == (uint64_t)cfg.batch * cfg.block_in * cfg.block_out,
               "macs_per_cycle %llu", (unsigned long long)cfg.macs_per_cycle);
    FUZZ_CHECK(cfg.bus_bytes >= 4 && cfg.bus_bytes <= 128, "bus_bytes %u", cfg.bus_bytes);
    for (int m = 0; m < VTA_MEM_COUNT; m++)
      FUZZ_CHECK(cfg.depth[m] > 0 && cfg.elem_bytes[m] > 0, "memory type %d is empty", m);
    /* Printing reads every derived value. */
    FILE *f = fopen("/dev/null", "w");
    if (f) {
      vta_config_print(&cfg, f);
      vta_config_print_json(&cfg, f);
      fclose(f);
    }
  }
  free(text);
  return 0;
}

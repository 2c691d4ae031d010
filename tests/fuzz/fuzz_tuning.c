/* fuzz_tuning.c - tuning files (host/tuning.c) for the default configuration. */
#include "fuzz/fuzz.h"

#include "host/tuning.h"
#include "vta/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  if (!text) return 0;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_tuning t;
  vta_error err;
  if (vta_tuning_parse(text, "fuzz.json", &cfg, &t, &err) == VTA_OK) vta_tuning_free(&t);
  free(text);
  return 0;
}

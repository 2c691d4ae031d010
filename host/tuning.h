/* tuning.h - the tuning file of `vta tune` and `vta compile --tuning` (tuning.c).
 *
 *     vta_tuning t;
 *     if (vta_tuning_read("tuning.json", &cfg, &t, &err)) ...   // refuses another configuration
 *     vta_acc_bundle_tuned(g, &cfg, &t, &acc, &n_tuned, &err);
 *     vta_tuning_free(&t);
 *
 * The file is JSON: {"vta_tuning": 1, "config": "<configuration key>", "backend": "rtl", "layers":
 * [{"shape": {...}, "epilogue": "offset", "plan": {...}, "cycles": N, "predicted_cycles": N,
 * "model_choice_cycles": N, "candidates": [{"plan": {...}, "predicted_cycles": N, "cycles": N},
 * ...]}, ...]}. Only "config" and each layer's "shape", "epilogue" and "plan" are read back;
 * the rest records what was measured (docs/user-guide/tune.md).
 */
#ifndef VTA_HOST_TUNING_H
#define VTA_HOST_TUNING_H

#include <cJSON.h>

#include "compiler/accel/partition.h"

#define VTA_TUNING_FORMAT 1

int vta_tuning_read(const char *path, const vta_config *cfg, vta_tuning *t, vta_error *err);
/* The same on text already in memory (NUL-terminated); `path` names it in messages. */
int vta_tuning_parse(const char *text, const char *path, const vta_config *cfg, vta_tuning *t,
                     vta_error *err);
void vta_tuning_free(vta_tuning *t);

/* JSON pieces for the writer (cmd_tune.c): a plan, a layer geometry, an epilogue's name. */
cJSON *vta_tuning_plan_json(const vta_tile_plan *p);
cJSON *vta_tuning_shape_json(const vta_conv_desc *d);
const char *vta_tuning_epi_name(vta_tile_epilogue e);
/* The "config" key: what the measured cycles depend on (shape, buffer sizes, bus, DRAM latency). */
void vta_tuning_config_key(const vta_config *cfg, char *buf, size_t n);

#endif

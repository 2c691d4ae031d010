/* tuning.c - reading and writing the tuning file of `vta tune` / `vta compile --tuning`.
 *
 * The design idea: a tuning file is a lookup table from what a plan depends on - a layer's
 * geometry and its epilogue, on one hardware configuration - to the tiling that measured
 * fastest, written as JSON a person can read and diff. The key repeats the whole geometry
 * instead of hashing it, so a file says which layers it tunes; the configuration's key (shape,
 * buffer sizes, bus width, DRAM latency: what the cycles depend on) guards against applying it to another accelerator (the compiler also re-checks that each
 * plan fits before using it).
 */
#include "host/tuning.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/file.h"
#include "vta/limits.h"

static const char *const epi_names[VTA_EPI_COUNT] = {"reset", "reset-add", "offset"};
_Static_assert(sizeof epi_names / sizeof epi_names[0] == VTA_EPI_COUNT, "one name per epilogue");
static const char *const order_names[VTA_TILE_ORDER_COUNT] = {"spatial-outer", "co-outer"};
_Static_assert(sizeof order_names / sizeof order_names[0] == VTA_TILE_ORDER_COUNT, "one name per order");

const char *vta_tuning_epi_name(vta_tile_epilogue e) { return e < VTA_EPI_COUNT ? epi_names[e] : "?"; }

void vta_tuning_config_key(const vta_config *cfg, char *buf, size_t n) {
  snprintf(buf, n, "%ux%ux%u, buffers uop %d inp %d wgt %d acc %d (log2 bytes), bus %u bits, DRAM latency %d",
           cfg->batch, cfg->block_in, cfg->block_out, cfg->log_uop_buff_size, cfg->log_inp_buff_size,
           cfg->log_wgt_buff_size, cfg->log_acc_buff_size, cfg->bus_bytes * 8, cfg->dram_latency);
}

cJSON *vta_tuning_plan_json(const vta_tile_plan *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "ho_t", p->ho_t);
  cJSON_AddNumberToObject(o, "wo_t", p->wo_t);
  cJSON_AddNumberToObject(o, "co_t", p->co_t);
  cJSON_AddNumberToObject(o, "ci_t", p->ci_t);
  cJSON_AddNumberToObject(o, "kh_t", p->kh_t);
  cJSON_AddNumberToObject(o, "kw_t", p->kw_t);
  cJSON_AddStringToObject(o, "order", order_names[p->order]);
  cJSON_AddNumberToObject(o, "bias_resident", p->bias_resident);
  cJSON_AddNumberToObject(o, "im2col", p->im2col);
  return o;
}

cJSON *vta_tuning_shape_json(const vta_conv_desc *d) {
  cJSON *o = cJSON_CreateObject();
  const struct { const char *k; uint32_t v; } f[] = {
      {"n", d->n}, {"c", d->c}, {"h", d->h}, {"w", d->w}, {"k", d->k}, {"kh", d->kh}, {"kw", d->kw},
      {"stride_h", d->stride_h}, {"stride_w", d->stride_w}, {"pad_top", d->pad_top},
      {"pad_left", d->pad_left}, {"pad_bottom", d->pad_bottom}, {"pad_right", d->pad_right},
      {"residual", (uint32_t)(d->has_residual != 0)}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) cJSON_AddNumberToObject(o, f[i].k, f[i].v);
  return o;
}

void vta_tuning_free(vta_tuning *t) {
  free(t->p);
  memset(t, 0, sizeof *t);
}

/* A non-negative integer member of o (at most 65535, the lowering's field limit). */
static int get_u32(const cJSON *o, const char *k, uint32_t *out, const char *where, vta_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 65535 ||
      v->valuedouble != (double)(uint32_t)v->valuedouble)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: \"%s\" must be an integer from 0 to 65535", where, k);
  *out = (uint32_t)v->valuedouble;
  return 0;
}

static int get_name(const cJSON *o, const char *k, const char *const *names, int n, int *out,
                    const char *where, vta_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  for (int i = 0; cJSON_IsString(v) && i < n; i++)
    if (strcmp(v->valuestring, names[i]) == 0) {
      *out = i;
      return 0;
    }
  return vta_error_set(err, VTA_ERR_INVALID, "%s: \"%s\" must be one of %s, %s%s%s", where, k, names[0],
                       names[1], n > 2 ? ", " : "", n > 2 ? names[2] : "");
}

static int read_layer(const cJSON *L, int index, vta_tuned_plan *t, vta_error *err) {
  char where[64];
  snprintf(where, sizeof where, "layer %d", index);
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(L, "shape"), *p = cJSON_GetObjectItemCaseSensitive(L, "plan");
  if (!cJSON_IsObject(s) || !cJSON_IsObject(p))
    return vta_error_set(err, VTA_ERR_INVALID, "%s: needs \"shape\" and \"plan\" objects", where);
  memset(t, 0, sizeof *t);
  vta_conv_desc *d = &t->d;
  uint32_t res = 0;
  int epi = 0, order = 0;
  uint32_t bias_res = 0, im2col = 0;
  if (get_u32(s, "n", &d->n, where, err) || get_u32(s, "c", &d->c, where, err) ||
      get_u32(s, "h", &d->h, where, err) || get_u32(s, "w", &d->w, where, err) ||
      get_u32(s, "k", &d->k, where, err) || get_u32(s, "kh", &d->kh, where, err) ||
      get_u32(s, "kw", &d->kw, where, err) || get_u32(s, "stride_h", &d->stride_h, where, err) ||
      get_u32(s, "stride_w", &d->stride_w, where, err) || get_u32(s, "pad_top", &d->pad_top, where, err) ||
      get_u32(s, "pad_left", &d->pad_left, where, err) ||
      get_u32(s, "pad_bottom", &d->pad_bottom, where, err) ||
      get_u32(s, "pad_right", &d->pad_right, where, err) || get_u32(s, "residual", &res, where, err) ||
      get_name(L, "epilogue", epi_names, VTA_EPI_COUNT, &epi, where, err) ||
      get_u32(p, "ho_t", &t->plan.ho_t, where, err) || get_u32(p, "wo_t", &t->plan.wo_t, where, err) ||
      get_u32(p, "co_t", &t->plan.co_t, where, err) || get_u32(p, "ci_t", &t->plan.ci_t, where, err) ||
      get_u32(p, "kh_t", &t->plan.kh_t, where, err) || get_u32(p, "kw_t", &t->plan.kw_t, where, err) ||
      get_name(p, "order", order_names, VTA_TILE_ORDER_COUNT, &order, where, err) ||
      get_u32(p, "bias_resident", &bias_res, where, err) || get_u32(p, "im2col", &im2col, where, err))
    return -1;
  d->has_residual = res != 0;
  t->epi = (vta_tile_epilogue)epi;
  t->plan.order = (vta_tile_order)order;
  t->plan.bias_resident = bias_res != 0;
  t->plan.im2col = im2col != 0;
  /* "cycles" (the measurement vta tune recorded) is optional; when present it is a whole
   * number of cycles below 2^53 (JSON numbers are doubles; 1e309 reads as infinity). */
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(L, "cycles");
  if (c && (!cJSON_IsNumber(c) || !(c->valuedouble >= 0 && c->valuedouble <= 9007199254740992.0) ||
            c->valuedouble != floor(c->valuedouble)))
    return vta_error_set(err, VTA_ERR_INVALID, "%s: \"cycles\" must be a whole number from 0 to 2^53",
                         where);
  t->cycles = c ? (uint64_t)c->valuedouble : 0;
  return 0;
}

int vta_tuning_read(const char *path, const vta_config *cfg, vta_tuning *t, vta_error *err) {
  memset(t, 0, sizeof *t);
  unsigned char *text;
  size_t n;
  if (vta_file_read(path, "a tuning file", VTA_LIMIT_TEXT_BYTES, &text, &n, err)) return -1;
  int rc = vta_tuning_parse((const char *)text, path, cfg, t, err);
  free(text);
  return rc;
}

int vta_tuning_parse(const char *text, const char *path, const vta_config *cfg, vta_tuning *t,
                     vta_error *err) {
  memset(t, 0, sizeof *t);
  cJSON *root = cJSON_Parse(text);
  int rc = -1;
  char shape[160];
  vta_tuning_config_key(cfg, shape, sizeof shape);
  const cJSON *fmt = root ? cJSON_GetObjectItemCaseSensitive(root, "vta_tuning") : NULL;
  const cJSON *cf = root ? cJSON_GetObjectItemCaseSensitive(root, "config") : NULL;
  const cJSON *layers = root ? cJSON_GetObjectItemCaseSensitive(root, "layers") : NULL;
  if (!root) {
    /* The error pointer points into text, freed below. */
    vta_error_set(err, VTA_ERR_INVALID, "%s: not JSON (near \"%.20s\")", path, cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
  } else if (!cJSON_IsNumber(fmt) || fmt->valueint != VTA_TUNING_FORMAT) {
    vta_error_set(err, VTA_ERR_INVALID, "%s: not a vta tuning file of format %d (\"vta_tuning\": %d)", path,
                  VTA_TUNING_FORMAT, VTA_TUNING_FORMAT);
  } else if (!cJSON_IsString(cf) || strcmp(cf->valuestring, shape) != 0) {
    vta_error_set(err, VTA_ERR_INVALID, "%s: tuned for the configuration %s; this compile is for %s (run "
                  "vta tune with this configuration)", path, cJSON_IsString(cf) ? cf->valuestring : "?", shape);
  } else if (!cJSON_IsArray(layers)) {
    vta_error_set(err, VTA_ERR_INVALID, "%s: no \"layers\" array", path);
  } else {
    int count = cJSON_GetArraySize(layers);
    t->p = calloc((size_t)count + 1, sizeof *t->p);
    if (!t->p) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    } else {
      rc = 0;
      const cJSON *L;
      cJSON_ArrayForEach(L, layers) {
        if (read_layer(L, t->n, &t->p[t->n], err)) {
          vta_error_prefix(err, "%s", path);
          rc = -1;
          break;
        }
        t->n++;
      }
    }
  }
  cJSON_Delete(root);
  if (rc) vta_tuning_free(t);
  return rc;
}

/* cmd_tune.c - `vta tune`: measure the cost model's best tilings of every accelerator layer of
 * a bundle on a simulator and record the fastest per layer shape.
 *
 * The design idea: the cost model (compiler/accel/vta_tile.c) ranks thousands of tilings by an event
 * model of the pipeline; its top few are close and the model is not the hardware. Tuning runs
 * those few on the device - the cycle-accurate rtl backend by default - through the lowering's
 * forced-plan entry (vta_lower_conv2d / vta_lower_dense with a plan), checks that every
 * candidate computes exactly the reference's int8 tensor, and writes the fastest plan per
 * layer geometry and epilogue as JSON (host/tuning.c). `vta compile --tuning FILE` then lowers
 * those layers with the measured plans. A bundle is the input because it already holds what
 * tuning needs - the int8 graph (each accelerator node's sizes and constants) and the hardware
 * configuration - so the model is neither re-imported nor re-calibrated. On fsim, which counts
 * no cycles, candidates are only verified and the cost model's choice is recorded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/cli.h"
#include "host/cli_args.h"
#include "host/tuning.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/program.h"
#include "vta/stats.h"

static void tune_help(void) {
  printf("usage: vta tune MODEL.vtab -o TUNING.json [options]\n"
         "\n"
         "For each accelerator layer of a bundle compiled with `vta compile --accel` (each\n"
         "distinct layer geometry and epilogue once), runs the cost model's best tilings on a\n"
         "simulator with random int8 data, checks each against the C reference bit for bit,\n"
         "and writes the fastest per layer to a JSON file that `vta compile --tuning FILE`\n"
         "applies. Prints one line per layer: its shape, the cost model's choice and the\n"
         "measured best.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE       the tuning file to write (required)\n"
         "  --backend NAME          rtl (default: counts cycles) or fsim (no cycles: the\n"
         "                          candidates are only verified, the cost model's choice kept)\n"
         "  --backend-options S     options for the backend\n"
         "  --candidates N          tilings to measure per layer, best predicted first\n"
         "                          (default 3, at most %d)\n"
         "  -h, --help              show this help\n"
         "\n"
         "exit status: 0 written, 1 a run failed or a candidate computed a wrong result, 2 bad\n"
         "command line.\n", VTA_TILE_EXPLAIN_TOP);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static int8_t rnd8(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int8_t)(rng >> 24);
}

typedef struct tuner {
  const vta_config *cfg;
  vta_device *dev;
  vta_jit *jit;
} tuner;

/* Runs part p of L lowered as low on input x (NCHW or [M][K]); *cycles receives the device's
 * cycles (0 on fsim) and *ok whether the output equals ref. */
static int measure(tuner *T, vta_acc_layer *L, int p, const vta_lowered *low, const int8_t *x,
                   const int8_t *ref, size_t ref_bytes, uint64_t *cycles, int *ok, vta_error *err) {
  vta_acc_part *P = &L->parts[p];
  uint64_t phys[VTA_PROG_BUF_COUNT] = {0}, need[VTA_PROG_BUF_COUNT];
  for (int q = 0; q < VTA_PROG_BUF_COUNT; q++) need[q] = vta_program_buffer_size(low->prog, (vta_prog_buf)q);
  if (need[VTA_PROG_BUF_INPUT] < low->input_bytes) need[VTA_PROG_BUF_INPUT] = low->input_bytes;
  if (need[VTA_PROG_BUF_OUTPUT] < low->output_bytes) need[VTA_PROG_BUF_OUTPUT] = low->output_bytes;
  if (need[VTA_PROG_BUF_WEIGHT] < low->weight_bytes) need[VTA_PROG_BUF_WEIGHT] = low->weight_bytes;
  if (need[VTA_PROG_BUF_BIAS] < low->bias_bytes) need[VTA_PROG_BUF_BIAS] = low->bias_bytes;
  int8_t *packed = calloc(1, low->input_bytes + 64), *outp = calloc(1, low->output_bytes + 64);
  int8_t *got = calloc(1, ref_bytes + 64);
  int rc = packed && outp && got ? 0 : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_lowered saved = P->low;
  P->low = *low; /* vta_acc_pack_input reads the plan's layout (image or im2col patches) */
  if (!rc) vta_acc_pack_input(T->cfg, L, p, x, packed);
  P->low = saved;
  for (int q = 0; !rc && q < VTA_PROG_BUF_COUNT; q++)
    if (need[q]) rc = vta_device_alloc(T->dev, need[q], &phys[q], err);
  if (!rc && low->weight_bytes)
    rc = vta_device_copy_to(T->dev, phys[VTA_PROG_BUF_WEIGHT], low->weight, low->weight_bytes, err);
  if (!rc && low->bias_bytes)
    rc = vta_device_copy_to(T->dev, phys[VTA_PROG_BUF_BIAS], low->bias, low->bias_bytes, err);
  if (!rc) rc = vta_device_copy_to(T->dev, phys[VTA_PROG_BUF_INPUT], packed, low->input_bytes, err);
  vta_stats st;
  memset(&st, 0, sizeof st);
  if (!rc) rc = vta_program_run(T->jit, low->prog, phys, &st, err);
  if (!rc) rc = vta_device_copy_from(T->dev, outp, phys[VTA_PROG_BUF_OUTPUT], low->output_bytes, err);
  if (!rc) {
    /* The part's channels, unpacked to NCHW (or rows), against the reference. */
    if (L->dense)
      vta_layout_unpack_dense(T->cfg, outp, P->dd.m, P->nch, T->cfg->block_out, got);
    else
      vta_layout_unpack_act(T->cfg, outp, P->d.n, P->nch, vta_conv_out_h(&P->d), vta_conv_out_w(&P->d),
                     T->cfg->block_out, got);
    *ok = memcmp(got, ref, ref_bytes) == 0;
    *cycles = st.cycles;
  }
  for (int q = 0; q < VTA_PROG_BUF_COUNT; q++)
    if (phys[q]) vta_device_free(T->dev, phys[q]);
  free(packed);
  free(outp);
  free(got);
  return rc;
}

static int lower_with(const vta_config *cfg, vta_acc_layer *L, int p, const int8_t *w, const int32_t *b,
                      const vta_tile_plan *plan, vta_lowered *low, vta_error *err) {
  vta_acc_part *P = &L->parts[p];
  return L->dense ? vta_lower_dense(cfg, &P->dd, w, P->dd.has_bias ? b : NULL, plan, low, err)
                  : vta_lower_conv2d(cfg, &P->d, w, P->d.has_bias ? b : NULL, plan, low, err);
}

static void shape_text(const vta_conv_desc *d, char *buf, size_t n) {
  snprintf(buf, n, "%ux%ux%ux%u -> %u, %ux%u/%u pad %u%s", d->n, d->c, d->h, d->w, d->k, d->kh, d->kw,
           d->stride_h, d->pad_top, d->has_residual ? " +residual" : "");
}

/* Tunes part p of layer L; appends its entry to layers (or nothing if its key was done). */
static int tune_part(tuner *T, const vta_graph *g, vta_acc_layer *L, int p, int ncand, cJSON *layers,
                     vta_tuned_plan **done, int *ndone, int *bad, vta_error *err) {
  vta_acc_part *P = &L->parts[p];
  vta_tile_epilogue epi = vta_acc_part_epilogue(g, L, p);
  for (int k = 0; k < *ndone; k++)
    if ((*done)[k].epi == epi && vta_conv_same_geometry(&(*done)[k].d, &P->d)) return 0;
  vta_tuned_plan *grown = realloc(*done, sizeof **done * (size_t)(*ndone + 1));
  if (!grown) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  *done = grown;
  int8_t *w;
  int32_t *b;
  if (vta_acc_part_constants(g, L, p, &w, &b, err)) return -1;
  vta_tile_choice ch;
  if (vta_tile_choose(T->cfg, NULL, &P->d, epi, &ch, err)) {
    free(w);
    free(b);
    return -1;
  }
  /* Random input and the reference output of the part's channels. */
  size_t xn, yn;
  if (L->dense) {
    xn = (size_t)P->dd.m * P->dd.k;
    yn = (size_t)P->dd.m * P->nch;
  } else {
    xn = (size_t)P->d.n * P->d.c * P->d.h * P->d.w;
    yn = (size_t)P->d.n * P->nch * vta_conv_out_h(&P->d) * vta_conv_out_w(&P->d);
  }
  int8_t *x = malloc(xn + 1), *ref = malloc(yn + 1);
  if (!x || !ref) {
    free(w), free(b), free(x), free(ref);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < xn; i++) x[i] = rnd8();
  if (L->dense)
    vta_ref_dense(&P->dd, x, w, P->dd.has_bias ? b : NULL, ref);
  else
    vta_ref_conv2d(&P->d, x, w, P->d.has_bias ? b : NULL, NULL, ref);
  int n = ch.ntop < ncand ? ch.ntop : ncand, best = -1, rc = 0, good[VTA_TILE_EXPLAIN_TOP] = {0};
  uint64_t cyc[VTA_TILE_EXPLAIN_TOP] = {0};
  cJSON *cands = cJSON_CreateArray();
  for (int c = 0; c < n && !rc; c++) {
    vta_lowered low;
    int ok = 0;
    rc = lower_with(T->cfg, L, p, w, b, &ch.top[c], &low, err);
    if (!rc) {
      rc = measure(T, L, p, &low, x, ref, yn, &cyc[c], &ok, err);
      vta_lowered_free(&low);
    }
    if (rc) break;
    if (!ok) {
      char s[128];
      shape_text(&P->d, s, sizeof s);
      fprintf(stderr, "vta tune: layer %s: candidate %d computed a result that differs from the reference\n", s, c);
      *bad = 1;
    }
    good[c] = ok;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "plan", vta_tuning_plan_json(&ch.top[c]));
    cJSON_AddNumberToObject(o, "predicted_cycles", (double)ch.top_cost[c].cycles);
    if (cyc[c]) cJSON_AddNumberToObject(o, "cycles", (double)cyc[c]);
    cJSON_AddBoolToObject(o, "verified", ok);
    cJSON_AddItemToArray(cands, o);
    /* The fewest measured cycles among correct candidates; without cycles, the first correct. */
    if (ok && (best < 0 || (cyc[c] && cyc[c] < cyc[best]))) best = c;
  }
  if (best < 0) best = 0; /* none correct: reported above, the exit status says so */
  free(w);
  free(b);
  free(x);
  free(ref);
  if (rc) {
    cJSON_Delete(cands);
    return -1;
  }
  cJSON *e = cJSON_CreateObject();
  cJSON_AddItemToObject(e, "shape", vta_tuning_shape_json(&P->d));
  cJSON_AddStringToObject(e, "epilogue", vta_tuning_epi_name(epi));
  cJSON_AddItemToObject(e, "plan", vta_tuning_plan_json(&ch.top[best]));
  if (cyc[best]) cJSON_AddNumberToObject(e, "cycles", (double)cyc[best]);
  cJSON_AddNumberToObject(e, "predicted_cycles", (double)ch.top_cost[best].cycles);
  if (cyc[0] && good[0]) cJSON_AddNumberToObject(e, "model_choice_cycles", (double)cyc[0]);
  cJSON_AddItemToObject(e, "candidates", cands);
  cJSON_AddItemToArray(layers, e);
  (*done)[*ndone].d = P->d;
  (*done)[*ndone].epi = epi;
  (*ndone)++;
  char s[128];
  shape_text(&P->d, s, sizeof s);
  if (cyc[0] && cyc[best])
    printf("%-36s %-9s cost model's choice %9" PRIu64 " cycles (predicted %9" PRIu64 "), best of %d %9" PRIu64
           " (candidate %d)\n", s, vta_tuning_epi_name(epi), cyc[0], ch.top_cost[0].cycles, n, cyc[best], best);
  else
    printf("%-36s %-9s %d candidates verified; no cycles on this backend: the cost model's choice kept "
           "(predicted %" PRIu64 ")\n", s, vta_tuning_epi_name(epi), n, ch.top_cost[0].cycles);
  return 0;
}

int vta_cmd_tune(int argc, char **argv) {
  const char *cmd = "tune", *in = NULL, *out = NULL, *backend = "rtl", *bopts = NULL, *ncs = NULL;
  int r;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (vta_cli_is_help(a)) {
      tune_help();
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--output", "-o", &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      out = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend-options", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      bopts = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--candidates", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      ncs = val;
    } else if (a[0] == '-' && a[1]) {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (in) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (one MODEL.vtab only)", a);
    } else {
      in = a;
    }
  }
  if (!in) return vta_cli_usage_error(cmd, "no MODEL.vtab given (a bundle compiled with --accel)");
  if (!out) return vta_cli_usage_error(cmd, "no output file (-o TUNING.json)");
  uint64_t ncand = 3;
  if (ncs && vta_cli_parse_u64(cmd, "--candidates", ncs, VTA_TILE_EXPLAIN_TOP, &ncand) != 0) return VTA_EXIT_USAGE;
  if (ncand < 1) return vta_cli_usage_error(cmd, "--candidates must be at least 1");
  unsigned char *bytes;
  size_t size;
  if (vta_cli_read_file(cmd, in, &bytes, &size) != 0) return VTA_EXIT_FAIL;
  vta_error err = {0};
  vta_graph *g;
  vta_cpu_code code;
  vta_bundle_acc acc;
  int rc = vta_bundle_read_acc(bytes, size, &g, &code, &acc, &err);
  free(bytes);
  if (rc) {
    vta_error_prefix(&err, "%s", in);
    return vta_cli_fail(cmd, &err);
  }
  vta_cpu_code_free(&code);
  vta_config cfg;
  if (!acc.config_json || !acc.n) {
    vta_bundle_acc_free(&acc);
    vta_graph_destroy(g);
    fprintf(stderr, "vta tune: %s has no accelerator layers (compile it with `vta compile --accel`)\n", in);
    return VTA_EXIT_FAIL;
  }
  rc = vta_config_parse(&cfg, acc.config_json, "bundle hardware configuration", &err);
  vta_bundle_acc_free(&acc);
  tuner T = {&cfg, NULL, NULL};
  if (!rc) rc = vta_device_open(backend, &cfg, bopts, &T.dev, &err);
  if (!rc) rc = vta_jit_create(T.dev, NULL, &T.jit, &err);
  cJSON *root = cJSON_CreateObject(), *layers = cJSON_CreateArray();
  char key[160];
  vta_tuning_config_key(&cfg, key, sizeof key);
  cJSON_AddNumberToObject(root, "vta_tuning", VTA_TUNING_FORMAT);
  cJSON_AddStringToObject(root, "config", key);
  cJSON_AddStringToObject(root, "backend", backend);
  cJSON_AddStringToObject(root, "model", in);
  vta_tuned_plan *done = NULL;
  int ndone = 0, bad = 0;
  for (int i = 0; !rc && i < g->n_nodes; i++) {
    if (!vta_node_on_acc(g, i) || vta_node_fused(g, i)) continue; /* fused: no program */
    vta_acc_layer L;
    if ((rc = vta_acc_desc(g, i, &cfg, &L, &err))) break;
    for (int p = 0; !rc && !L.pool && p < L.nparts; p++) /* max pooling has no tiling choice */
      rc = tune_part(&T, g, &L, p, (int)ncand, layers, &done, &ndone, &bad, &err);
    vta_acc_layer_free(&L);
  }
  cJSON_AddItemToObject(root, "layers", layers);
  char *text = rc ? NULL : cJSON_Print(root);
  int status = VTA_EXIT_OK;
  if (rc) {
    status = vta_cli_fail(cmd, &err);
  } else if (!text || vta_cli_write_file(cmd, out, text, strlen(text)) != 0) {
    status = VTA_EXIT_FAIL;
  } else {
    printf("%d layer shapes tuned on %s; written to %s\n", ndone, backend, out);
    if (bad) status = VTA_EXIT_FAIL;
  }
  free(text);
  free(done);
  cJSON_Delete(root);
  vta_jit_destroy(T.jit);
  if (T.dev) vta_device_close(T.dev);
  vta_graph_destroy(g);
  return status;
}

/* sweep_spec.c - the sweep's specification (a JSON file and/or flags), the table of FPGA parts
 * and the enumeration of points.
 *
 * The design idea: the sweep knows no configuration key itself. A point is the base
 * configuration's JSON with the axes' values written over it, handed to isa/'s vta_config_parse:
 * whatever isa/ accepts can be swept, and whatever it refuses is listed with isa/'s own reason.
 */
#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/sweep.h"
#include "isa/svgen.h"
#include "vta/file.h"

/* Published resource counts (LUTs, flip-flops, DSP slices, 36 Kb block RAMs, UltraRAMs) from
 * the vendor's product tables. Synthesis runs per estimate: the family, and for UltraScale+
 * whether the part has URAM (xcup: yosys infers URAM where it fits; xcup-nouram: the same
 * family with every memory in block RAM or LUT RAM, for the xczu3eg, which has none). Parts of
 * one estimate share it. */
static const sweep_part parts[] = {
    {"xc7z020", "Pynq-Z1", "xc7", "xc7", 53200, 106400, 220, 140, 0},
    {"xczu3eg", "Ultra96", "xcup", "xcup-nouram", 70560, 141120, 360, 216, 0},
    {"xczu7ev", "ZCU104", "xcup", "xcup", 230400, 460800, 1728, 312, 96},
    {"xck26", "KV260", "xcup", "xcup", 117120, 234240, 1248, 144, 64},
    {"xcu250", "Alveo U250", "xcup", "xcup", 1728000, 3456000, 12288, 2688, 1280},
};

const sweep_part *sweep_parts(size_t *n) {
  *n = sizeof parts / sizeof parts[0];
  return parts;
}

const sweep_part *sweep_part_find(const char *name) {
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (strcmp(parts[i].name, name) == 0)
      return &parts[i];
  return NULL;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void sweep_spec_init(sweep_spec *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "sweep");
  snprintf(s->backend, sizeof s->backend, "rtl");
  s->timeout_s = 3600;
  s->resources = 1;
}

static int add_axis(sweep_spec *s, const char *key, const double *v, int n, char *err,
                    size_t errlen) {
  int i;
  if (!*key || strlen(key) >= sizeof s->axes[0].key) {
    seterr(err, errlen, "axis key '%s' is empty or too long", key);
    return -1;
  }
  for (const char *p = key; *p; p++)
    if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_') {
      seterr(err, errlen, "axis key '%s' is not a configuration key (upper case, e.g. LOG_BATCH)",
             key);
      return -1;
    }
  if (n < 1) {
    seterr(err, errlen, "axis %s has no values", key);
    return -1;
  }
  for (i = 0; i < s->naxes; i++)
    if (strcmp(s->axes[i].key, key) == 0)
      break;
  if (i == s->naxes) {
    if (s->naxes >= SWEEP_MAX_AXES) {
      seterr(err, errlen, "more than %d axes", SWEEP_MAX_AXES);
      return -1;
    }
    s->naxes++;
  }
  sweep_axis *a = &s->axes[i];
  snprintf(a->key, sizeof a->key, "%s", key);
  a->n = n;
  memcpy(a->v, v, sizeof(double) * (size_t)n);
  return 0;
}

static int range(const char *key, double from, double to, double step, double *v, int *n,
                 char *err, size_t errlen) {
  if (!isfinite(from) || !isfinite(to) || !isfinite(step) || step <= 0 || to < from) {
    seterr(err, errlen, "axis %s: range %g to %g step %g is not an increasing range with a positive step",
           key, from, to, step);
    return -1;
  }
  double count = floor((to - from) / step + 1e-9) + 1;
  if (count > SWEEP_MAX_VALUES) {
    seterr(err, errlen, "axis %s: range %g to %g step %g has %.0f values (limit %d)", key, from,
           to, step, count, SWEEP_MAX_VALUES);
    return -1;
  }
  *n = (int)count;
  for (int i = 0; i < *n; i++)
    v[i] = from + step * i;
  return 0;
}

static int parse_num(const char *t, double *out) {
  char *end;
  errno = 0;
  *out = strtod(t, &end);
  return end != t && *end == '\0' && errno == 0 && isfinite(*out) ? 0 : -1;
}

int sweep_spec_axis_text(sweep_spec *s, const char *text, char *err, size_t errlen) {
  char key[64], vals[1024];
  const char *eq = strchr(text, '=');
  double v[SWEEP_MAX_VALUES];
  int n = 0;
  if (!eq || (size_t)(eq - text) >= sizeof key || strlen(eq + 1) >= sizeof vals) {
    seterr(err, errlen, "axis '%s' is not KEY=V1,V2,... or KEY=FROM:TO[:STEP]", text);
    return -1;
  }
  memcpy(key, text, (size_t)(eq - text));
  key[eq - text] = '\0';
  snprintf(vals, sizeof vals, "%s", eq + 1);
  if (strchr(vals, ':')) {
    char *a = vals, *b = strchr(a, ':'), *c;
    double from, to, step = 1;
    *b++ = '\0';
    c = strchr(b, ':');
    if (c)
      *c++ = '\0';
    if (parse_num(a, &from) || parse_num(b, &to) || (c && parse_num(c, &step))) {
      seterr(err, errlen, "axis %s: '%s' is not FROM:TO[:STEP] with numbers", key, eq + 1);
      return -1;
    }
    if (range(key, from, to, step, v, &n, err, errlen))
      return -1;
  } else {
    for (char *t = strtok(vals, ","); t; t = strtok(NULL, ",")) {
      if (n >= SWEEP_MAX_VALUES) {
        seterr(err, errlen, "axis %s: more than %d values", key, SWEEP_MAX_VALUES);
        return -1;
      }
      if (parse_num(t, &v[n++])) {
        seterr(err, errlen, "axis %s: value '%s' is not a number", key, t);
        return -1;
      }
    }
  }
  return add_axis(s, key, v, n, err, errlen);
}

/* Canonical workload text, checked: builtin:resnet18 | bench:NAME ARGS | onnx:PATH[,k=v]. */
int sweep_spec_add_workload(sweep_spec *s, const char *text, char *err, size_t errlen) {
  if (s->nworkloads >= SWEEP_MAX_WORKLOADS) {
    seterr(err, errlen, "more than %d workloads", SWEEP_MAX_WORKLOADS);
    return -1;
  }
  if (strlen(text) >= sizeof s->workloads[0]) {
    seterr(err, errlen, "workload '%.40s...' is too long", text);
    return -1;
  }
  if (strcmp(text, "builtin:resnet18") == 0) {
  } else if (strncmp(text, "bench:", 6) == 0) {
    static const char *const known[] = {"gemm", "alu", "conv2d"};
    size_t i, len = strcspn(text + 6, " ");
    for (i = 0; i < sizeof known / sizeof known[0]; i++)
      if (strlen(known[i]) == len && strncmp(text + 6, known[i], len) == 0)
        break;
    if (i == sizeof known / sizeof known[0]) {
      seterr(err, errlen, "workload '%s': bench program must be gemm, alu or conv2d", text);
      return -1;
    }
    if (strstr(text, "--config") || strstr(text, "--backend")) {
      seterr(err, errlen, "workload '%s': --config and --backend are the sweep's to set", text);
      return -1;
    }
  } else if (strncmp(text, "onnx:", 5) == 0) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", text + 5);
    char *path = strtok(buf, ",");
    int have_input = 0;
    if (!path || access(path, R_OK) != 0) {
      seterr(err, errlen, "workload '%s': cannot read the ONNX file '%s'", text, path ? path : "");
      return -1;
    }
    for (char *kv = strtok(NULL, ","); kv; kv = strtok(NULL, ",")) {
      if (strncmp(kv, "calibrate=", 10) == 0) {
        if (access(kv + 10, R_OK) != 0) {
          seterr(err, errlen, "workload '%s': cannot read the calibration folder '%s'", text, kv + 10);
          return -1;
        }
      } else if (strncmp(kv, "input=", 6) == 0) {
        if (access(kv + 6, R_OK) != 0) {
          seterr(err, errlen, "workload '%s': cannot read the input '%s'", text, kv + 6);
          return -1;
        }
        have_input = 1;
      } else {
        seterr(err, errlen, "workload '%s': '%s' is not calibrate=DIR or input=X.npy", text, kv);
        return -1;
      }
    }
    if (!have_input) {
      seterr(err, errlen, "workload '%s': an ONNX workload needs input=X.npy (the tensor it runs on)",
             text);
      return -1;
    }
  } else {
    seterr(err, errlen,
           "workload '%s' is not builtin:resnet18, bench:PROGRAM [ARGS] or onnx:FILE,input=X.npy[,calibrate=DIR]",
           text);
    return -1;
  }
  snprintf(s->workloads[s->nworkloads++], sizeof s->workloads[0], "%s", text);
  return 0;
}

int sweep_spec_add_part(sweep_spec *s, const char *name, char *err, size_t errlen) {
  const sweep_part *p = sweep_part_find(name);
  size_t n, i;
  if (!p) {
    const sweep_part *all = sweep_parts(&n);
    char list[256] = "";
    for (i = 0; i < n; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", all[i].name);
    seterr(err, errlen, "unknown part '%s' (known: %s)", name, list);
    return -1;
  }
  for (int k = 0; k < s->nparts; k++)
    if (s->parts[k] == p)
      return 0;
  if (s->nparts >= SWEEP_MAX_PARTS) {
    seterr(err, errlen, "more than %d parts", SWEEP_MAX_PARTS);
    return -1;
  }
  s->parts[s->nparts++] = p;
  return 0;
}

/* The spec's text, read with the project's one reader (isa/file.c: pipes work, 16 MiB at most). */
static char *read_text(const char *path, char *err, size_t errlen) {
  unsigned char *data;
  size_t len;
  vta_error e;
  if (vta_file_read(path, "a sweep spec", (size_t)16 << 20, &data, &len, &e) != VTA_OK) {
    seterr(err, errlen, "%s", e.msg);
    return NULL;
  }
  return (char *)data;
}

int sweep_spec_load(sweep_spec *s, const char *path, char *err, size_t errlen) {
  char sub[512];
  char *text = read_text(path, err, errlen);
  if (!text)
    return -1;
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!root || !cJSON_IsObject(root)) {
    const char *at = cJSON_GetErrorPtr();
    seterr(err, errlen, "%s: not a JSON object%s%.30s%s", path, at ? " (near '" : "",
           at ? at : "", at ? "')" : "");
    cJSON_Delete(root);
    return -1;
  }
  int rc = -1;
  cJSON *it;
  cJSON_ArrayForEach(it, root) {
    const char *k = it->string;
    if (strcmp(k, "name") == 0) {
      if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof s->name) {
        seterr(err, errlen, "%s: name: a string of at most %zu characters", path, sizeof s->name - 1);
        goto out;
      }
      snprintf(s->name, sizeof s->name, "%s", it->valuestring);
    } else if (strcmp(k, "base") == 0) {
      if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof s->base) {
        seterr(err, errlen, "%s: base: a configuration file name", path);
        goto out;
      }
      snprintf(s->base, sizeof s->base, "%s", it->valuestring);
    } else if (strcmp(k, "backend") == 0) {
      if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof s->backend) {
        seterr(err, errlen, "%s: backend: sc, rtl or model", path);
        goto out;
      }
      snprintf(s->backend, sizeof s->backend, "%s", it->valuestring);
    } else if (strcmp(k, "timeout") == 0) {
      if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || it->valuedouble > 1e6) {
        seterr(err, errlen, "%s: timeout: seconds per job, above 0 and at most 1e6", path);
        goto out;
      }
      s->timeout_s = it->valuedouble;
    } else if (strcmp(k, "resources") == 0) {
      if (!cJSON_IsBool(it)) {
        seterr(err, errlen, "%s: resources: true or false", path);
        goto out;
      }
      s->resources = cJSON_IsTrue(it);
    } else if (strcmp(k, "rtl_sample") == 0) {
      if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= SWEEP_MAX_SAMPLE &&
          it->valuedouble == floor(it->valuedouble)) {
        s->rtl_sample = (int)it->valuedouble;
        s->nsample_idx = 0;
      } else if (cJSON_IsArray(it) && cJSON_GetArraySize(it) <= SWEEP_MAX_SAMPLE) {
        cJSON *e;
        s->nsample_idx = 0;
        cJSON_ArrayForEach(e, it) {
          if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble >= SWEEP_MAX_POINTS) {
            seterr(err, errlen, "%s: rtl_sample: point indices from 0 to %d", path, SWEEP_MAX_POINTS - 1);
            goto out;
          }
          s->sample_idx[s->nsample_idx++] = (int)e->valuedouble;
        }
        s->rtl_sample = s->nsample_idx;
      } else {
        seterr(err, errlen, "%s: rtl_sample: a count (0 to %d) or a list of point indices", path,
               SWEEP_MAX_SAMPLE);
        goto out;
      }
    } else if (strcmp(k, "axes") == 0) {
      cJSON *ax;
      if (!cJSON_IsObject(it)) {
        seterr(err, errlen, "%s: axes: an object of KEY: [values] or KEY: {\"from\":A,\"to\":B,\"step\":S}", path);
        goto out;
      }
      cJSON_ArrayForEach(ax, it) {
        double v[SWEEP_MAX_VALUES];
        int n = 0;
        if (cJSON_IsArray(ax)) {
          cJSON *e;
          cJSON_ArrayForEach(e, ax) {
            if (n >= SWEEP_MAX_VALUES || !cJSON_IsNumber(e)) {
              seterr(err, errlen, "%s: axes.%s: at most %d numbers", path, ax->string, SWEEP_MAX_VALUES);
              goto out;
            }
            v[n++] = e->valuedouble;
          }
        } else if (cJSON_IsNumber(ax)) {
          v[n++] = ax->valuedouble;
        } else if (cJSON_IsObject(ax)) {
          cJSON *f = cJSON_GetObjectItemCaseSensitive(ax, "from"),
                *t = cJSON_GetObjectItemCaseSensitive(ax, "to"),
                *st = cJSON_GetObjectItemCaseSensitive(ax, "step");
          if (!cJSON_IsNumber(f) || !cJSON_IsNumber(t) || (st && !cJSON_IsNumber(st))) {
            seterr(err, errlen, "%s: axes.%s: a range needs numbers \"from\" and \"to\" (and \"step\")",
                   path, ax->string);
            goto out;
          }
          if (range(ax->string, f->valuedouble, t->valuedouble, st ? st->valuedouble : 1, v, &n,
                    sub, sizeof sub)) {
            seterr(err, errlen, "%s: axes: %s", path, sub);
            goto out;
          }
        } else {
          seterr(err, errlen, "%s: axes.%s: a list of numbers or a range object", path, ax->string);
          goto out;
        }
        if (add_axis(s, ax->string, v, n, sub, sizeof sub)) {
          seterr(err, errlen, "%s: axes: %s", path, sub);
          goto out;
        }
      }
    } else if (strcmp(k, "workloads") == 0) {
      cJSON *w;
      if (!cJSON_IsArray(it)) {
        seterr(err, errlen, "%s: workloads: a list", path);
        goto out;
      }
      cJSON_ArrayForEach(w, it) {
        char text[PATH_MAX];
        if (cJSON_IsString(w)) {
          snprintf(text, sizeof text, "%s", w->valuestring);
        } else if (cJSON_IsObject(w) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(w, "onnx"))) {
          cJSON *c = cJSON_GetObjectItemCaseSensitive(w, "calibrate"),
                *in = cJSON_GetObjectItemCaseSensitive(w, "input");
          if ((c && !cJSON_IsString(c)) || !cJSON_IsString(in)) {
            seterr(err, errlen, "%s: workloads: an onnx workload needs \"input\" (and may have \"calibrate\") as strings", path);
            goto out;
          }
          snprintf(text, sizeof text, "onnx:%s,input=%s%s%s",
                   cJSON_GetObjectItemCaseSensitive(w, "onnx")->valuestring, in->valuestring,
                   c ? ",calibrate=" : "", c ? c->valuestring : "");
        } else if (cJSON_IsObject(w) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(w, "bench"))) {
          cJSON *e;
          snprintf(text, sizeof text, "bench:");
          cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(w, "bench")) {
            if (!cJSON_IsString(e) || strchr(e->valuestring, ' ')) {
              seterr(err, errlen, "%s: workloads: bench arguments are strings without spaces", path);
              goto out;
            }
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s",
                     text[6] ? " " : "", e->valuestring);
          }
        } else {
          seterr(err, errlen, "%s: workloads: \"builtin:resnet18\", {\"bench\": [...]} or {\"onnx\": FILE, \"input\": X.npy, \"calibrate\": DIR}", path);
          goto out;
        }
        if (sweep_spec_add_workload(s, text, sub, sizeof sub)) {
          seterr(err, errlen, "%s: workloads: %s", path, sub);
          goto out;
        }
      }
    } else if (strcmp(k, "parts") == 0) {
      cJSON *p;
      if (!cJSON_IsArray(it)) {
        seterr(err, errlen, "%s: parts: a list of part names", path);
        goto out;
      }
      cJSON_ArrayForEach(p, it) {
        if (!cJSON_IsString(p) || sweep_spec_add_part(s, p->valuestring, sub, sizeof sub)) {
          seterr(err, errlen, "%s: parts: %s", path, cJSON_IsString(p) ? sub : "names are strings");
          goto out;
        }
      }
    } else {
      seterr(err, errlen,
             "%s: unknown field '%s' (known: name, base, axes, workloads, parts, backend, rtl_sample, timeout, resources)",
             path, k);
      goto out;
    }
  }
  rc = 0;
out:
  cJSON_Delete(root);
  return rc;
}

/* ---- points ---- */

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ull;
  }
  return h;
}

/* The base configuration's keys as a JSON object (isa/'s own JSON form without "derived"). */
static cJSON *base_json(const sweep_spec *s, char *err, size_t errlen) {
  vta_config cfg;
  vta_error e = {0};
  if (s->base[0]) {
    if (vta_config_load(&cfg, s->base, &e) != VTA_OK) {
      seterr(err, errlen, "base configuration: %s", e.msg);
      return NULL;
    }
  } else {
    vta_config_default(&cfg);
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) {
    seterr(err, errlen, "out of memory");
    return NULL;
  }
  vta_config_print_json(&cfg, f);
  fclose(f);
  cJSON *o = cJSON_Parse(buf);
  free(buf);
  if (!o) {
    seterr(err, errlen, "cannot read back the base configuration's JSON");
    return NULL;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(o, "derived");
  return o;
}

int sweep_points(const sweep_spec *s, sweep_point **points, size_t *n,
                 void (*invalid)(void *ctx, const char *label, const char *reason), void *ctx,
                 char *err, size_t errlen) {
  size_t total = 1, i;
  int a;
  *points = NULL;
  *n = 0;
  for (a = 0; a < s->naxes; a++) {
    total *= (size_t)s->axes[a].n;
    if (total > SWEEP_MAX_POINTS) {
      seterr(err, errlen, "the axes span more than %d points", SWEEP_MAX_POINTS);
      return -1;
    }
  }
  cJSON *base = base_json(s, err, errlen);
  if (!base)
    return -1;
  sweep_point *pts = calloc(total, sizeof *pts);
  if (!pts) {
    cJSON_Delete(base);
    seterr(err, errlen, "out of memory for %zu points", total);
    return -1;
  }
  size_t nv = 0;
  for (i = 0; i < total; i++) {
    cJSON *o = cJSON_Duplicate(base, 1);
    sweep_point *p = &pts[nv];
    size_t rem = i;
    p->label[0] = '\0';
    /* The last axis varies fastest. */
    size_t div = total;
    for (a = 0; a < s->naxes; a++) {
      const sweep_axis *ax = &s->axes[a];
      div /= (size_t)ax->n;
      double v = ax->v[rem / div];
      rem %= div;
      /* LOG_BLOCK sets both block sizes: drop the separate keys the base spells them with. */
      if (strcmp(ax->key, "LOG_BLOCK") == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "LOG_BLOCK_IN");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "LOG_BLOCK_OUT");
      }
      cJSON_DeleteItemFromObjectCaseSensitive(o, ax->key);
      cJSON_AddNumberToObject(o, ax->key, v);
      snprintf(p->label + strlen(p->label), sizeof p->label - strlen(p->label), "%s%s=%g",
               a ? " " : "", ax->key, v);
    }
    if (s->naxes == 0)
      snprintf(p->label, sizeof p->label, "base");
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!json) {
      sweep_points_free(pts, nv);
      cJSON_Delete(base);
      seterr(err, errlen, "out of memory");
      return -1;
    }
    vta_error e = {0};
    if (vta_config_parse(&p->cfg, json, p->label, &e) != VTA_OK) {
      if (invalid)
        invalid(ctx, p->label, e.msg);
      free(json);
      continue;
    }
    p->json = json;
    snprintf(p->id, sizeof p->id, "p%012llx", (unsigned long long)(fnv1a(json) & 0xffffffffffffull));
    vta_svgen_model_key(&p->cfg, p->model_key, sizeof p->model_key);
    nv++;
  }
  cJSON_Delete(base);
  /* The rtl sample: given indices, or rtl_sample points spread evenly (first and last
   * included). */
  if (s->nsample_idx > 0) {
    for (int k = 0; k < s->nsample_idx; k++)
      if ((size_t)s->sample_idx[k] < nv)
        pts[s->sample_idx[k]].rtl = 1;
  } else if (s->rtl_sample > 0 && nv > 0) {
    size_t m = (size_t)s->rtl_sample < nv ? (size_t)s->rtl_sample : nv;
    for (size_t k = 0; k < m; k++)
      pts[m == 1 ? 0 : k * (nv - 1) / (m - 1)].rtl = 1;
  }
  *points = pts;
  *n = nv;
  return 0;
}

void sweep_points_free(sweep_point *p, size_t n) {
  if (!p)
    return;
  for (size_t i = 0; i < n; i++)
    free(p[i].json);
  free(p);
}

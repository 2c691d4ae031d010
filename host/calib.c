/* calib.c - calibration inputs for `vta compile --quantize`: a directory of .npy files, the
 * model's own test inputs, a calibration set found by the model's name, or random normal data.
 *
 * The design idea: the quantizer wants float arrays in graph-input order; people have
 * pictures saved as .npy. So the rules are the plainest that work: for a model with one input,
 * every *.npy file of DIR (sorted by name) is one sample; for several inputs, every
 * subdirectory of DIR is one sample holding NAME.npy per input. Without DIR, the inputs of an
 * ONNX model zoo test set next to the model (test_data_set_N/input_K.pb) are used, then a
 * directory named after the model on the calibration path ($VTA_CALIB_PATH, by default the
 * repository's tests/data/calib, which holds sets for the two reference models made from
 * pictures that are not their test inputs), and failing that, four samples of standard normal
 * noise - which calibrates badly for inputs that are not roughly N(0, 1), hence the warning
 * the caller prints.
 */
#include "host/calib.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/npy.h"
#include "vta/file.h"
#include "vta/limits.h"

#define MAX_SAMPLES 256

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void vta_calib_set_free(vta_calib_set *c) {
  for (int i = 0; c->data && i < c->n_samples * c->n_inputs; i++) free(c->data[i]);
  free(c->data);
  memset(c, 0, sizeof *c);
}

static int add_sample(vta_calib_set *c, float **inputs, vta_error *err) {
  /* + 1: a graph without inputs still gets a block (realloc to 0 bytes frees c->data and
   * returns NULL, which was then freed again: found by fuzz_onnx). */
  float **d = realloc(c->data, sizeof(float *) * ((size_t)(c->n_samples + 1) * (size_t)c->n_inputs + 1));
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory reading calibration inputs");
  c->data = d;
  for (int k = 0; k < c->n_inputs; k++) d[c->n_samples * c->n_inputs + k] = inputs[k];
  c->n_samples++;
  return 0;
}

/* One sample's input pointers (one per graph input: their number has no fixed bound). */
static float **new_sample(const vta_graph *g, vta_error *err) {
  float **in = calloc((size_t)g->n_inputs + 1, sizeof *in);
  if (!in) vta_error_set(err, VTA_ERR_NOMEM, "out of memory for a calibration sample of %d inputs",
                         g->n_inputs);
  return in;
}

/* Reads a float32 .npy whose element count matches input k. */
static float *read_input(const vta_graph *g, int k, const char *path, vta_error *err) {
  vta_npy t;
  if (vta_npy_read(path, &t, err)) return NULL;
  const vta_gvalue *v = &g->values[g->inputs[k]];
  int ok = strcmp(t.descr, "<f4") == 0 && t.rank == v->rank;
  for (int d = 0; ok && d < v->rank; d++) ok = t.dims[d] == v->dims[d];
  if (!ok) {
    char shape[200] = "";
    size_t at = 0;
    for (int d = 0; d < v->rank && at < sizeof shape; d++)
      at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%lld", d ? "," : "", (long long)v->dims[d]);
    vta_error_set(err, VTA_ERR_INVALID, "%s: calibration input for '%s' must be float32 of shape (%s); "
                  "the file holds %s of rank %d", path, v->name, shape, t.descr, t.rank);
    vta_npy_free(&t);
    return NULL;
  }
  float *data = t.data;
  t.data = NULL;
  vta_npy_free(&t);
  return data;
}

/* Sorted names of dir's entries that end in suffix (or are directories when suffix is NULL). */
static int list_dir(const char *dir, const char *suffix, char **names, vta_error *err) {
  DIR *d = opendir(dir);
  if (!d) return vta_error_set(err, VTA_ERR_IO, "%s: cannot open the calibration directory: %s", dir, strerror(errno));
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_SAMPLES) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    size_t len = strlen(e->d_name);
    if (suffix ? (S_ISREG(st.st_mode) && len > strlen(suffix) && strcmp(e->d_name + len - strlen(suffix), suffix) == 0)
               : S_ISDIR(st.st_mode))
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp);
  return n;
}

int vta_calib_load_dir(const vta_graph *g, const char *dir, vta_calib_set *c, vta_error *err) {
  memset(c, 0, sizeof *c);
  c->n_inputs = g->n_inputs;
  char *names[MAX_SAMPLES];
  int one = g->n_inputs == 1;
  int n = list_dir(dir, one ? ".npy" : NULL, names, err);
  if (n < 0) return -1;
  int rc = 0;
  for (int s = 0; s < n && !rc; s++) {
    float **in = new_sample(g, err);
    char path[4096];
    if (!in) {
      rc = -1;
      break;
    }
    for (int k = 0; k < g->n_inputs && !rc; k++) {
      if (one)
        snprintf(path, sizeof path, "%s/%s", dir, names[s]);
      else
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, names[s], g->values[g->inputs[k]].name);
      if (!(in[k] = read_input(g, k, path, err))) rc = -1;
    }
    if (!rc) rc = add_sample(c, in, err);
    if (rc)
      for (int k = 0; k < g->n_inputs; k++) free(in[k]);
    free(in);
  }
  for (int s = 0; s < n; s++) free(names[s]);
  if (!rc && c->n_samples == 0)
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s holds no calibration sample (%s)", dir,
                       one ? "no .npy file" : "no subdirectory with one NAME.npy per input");
  if (rc) vta_calib_set_free(c);
  return rc;
}

/* DIR/<stem>/ on the calibration path: 1 loaded, 0 none there, -1 error (a directory that exists
 * but holds unusable files is an error, not a reason to fall back silently). */
static int load_by_name(const vta_graph *g, const char *model_path, vta_calib_set *c, char *source,
                        size_t size, vta_error *err) {
  const char *base = strrchr(model_path, '/');
  base = base ? base + 1 : model_path;
  char stem[256];
  snprintf(stem, sizeof stem, "%s", base);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = 0;
  const char *path = getenv("VTA_CALIB_PATH");
  if (!path) path = "tests/data/calib";
  while (*path) {
    size_t len = strcspn(path, ":");
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s/%s", (int)len, path, stem);
    path += len + (path[len] == ':');
    struct stat st;
    if (!len || stat(dir, &st) || !S_ISDIR(st.st_mode)) continue;
    if (vta_calib_load_dir(g, dir, c, err)) return -1;
    snprintf(source, size, "%s", dir);
    return 1;
  }
  return 0;
}

int vta_calib_load_default(const vta_graph *g, const char *model_path, vta_calib_set *c, int *random,
                           char *source, size_t size, vta_error *err) {
  memset(c, 0, sizeof *c);
  c->n_inputs = g->n_inputs;
  *random = 0;
  /* ONNX model zoo layout: test_data_set_N/input_K.pb beside model.onnx. */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", model_path);
  char *slash = strrchr(dir, '/');
  if (slash)
    slash[1] = 0;
  else
    snprintf(dir, sizeof dir, "./");
  for (int s = 0; s < MAX_SAMPLES; s++) {
    float **in = new_sample(g, err);
    if (!in) {
      vta_calib_set_free(c);
      return -1;
    }
    int ok = 1;
    for (int k = 0; k < g->n_inputs && ok; k++) {
      char path[4200];
      snprintf(path, sizeof path, "%stest_data_set_%d/input_%d.pb", dir, s, k);
      struct stat st;
      if (stat(path, &st) != 0) {
        ok = 0;
        break;
      }
      unsigned char *b = NULL;
      size_t n = 0;
      vta_error e1;
      ok = vta_file_read(path, "an ONNX tensor", VTA_LIMIT_NPY_BYTES, &b, &n, &e1) == VTA_OK;
      vta_gvalue t;
      memset(&t, 0, sizeof t);
      vta_error e2 = {0};
      const vta_gvalue *v = &g->values[g->inputs[k]];
      if (ok && vta_onnx_read_tensor(b, n, &t, &e2) == 0 && t.dtype == VTA_DT_F32 &&
          vta_value_count(&t) == vta_value_count(v)) {
        in[k] = t.data;
        t.data = NULL;
      } else {
        ok = 0;
      }
      vta_value_free(&t);
      free(b);
    }
    if (!ok) {
      for (int k = 0; k < g->n_inputs; k++) free(in[k]);
      free(in);
      break;
    }
    if (add_sample(c, in, err)) {
      for (int k = 0; k < g->n_inputs; k++) free(in[k]);
      free(in);
      vta_calib_set_free(c);
      return -1;
    }
    free(in);
  }
  if (c->n_samples) {
    snprintf(source, size, "%stest_data_set_N", dir);
    return 0;
  }
  int r = load_by_name(g, model_path, c, source, size, err);
  if (r) return r < 0 ? -1 : 0;
  if (vta_calib_load_noise(g, c, source, size, err)) return -1;
  *random = 1;
  return 0;
}

int vta_calib_load_noise(const vta_graph *g, vta_calib_set *c, char *source, size_t size, vta_error *err) {
  memset(c, 0, sizeof *c);
  c->n_inputs = g->n_inputs;
  snprintf(source, size, "random normal data");
  /* Standard normal noise (Box-Muller over a fixed linear congruential sequence: the same
   * bundle from the same model every time). */
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int s = 0; s < 4; s++) {
    float **in = new_sample(g, err);
    if (!in) {
      vta_calib_set_free(c);
      return -1;
    }
    for (int k = 0; k < g->n_inputs; k++) {
      int64_t n = vta_value_count(&g->values[g->inputs[k]]);
      in[k] = n >= 0 ? malloc(sizeof(float) * (size_t)n + 4) : NULL;
      if (!in[k]) {
        for (int j = 0; j < k; j++) free(in[j]);
        free(in);
        vta_calib_set_free(c);
        return vta_error_set(err, VTA_ERR_NOMEM, "out of memory making calibration inputs");
      }
      for (int64_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u1 = ((state >> 11) + 1.0) / 9007199254740993.0;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u2 = (state >> 11) / 9007199254740992.0;
        in[k][i] = (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
      }
    }
    if (add_sample(c, in, err)) {
      for (int k = 0; k < g->n_inputs; k++) free(in[k]);
      free(in);
      vta_calib_set_free(c);
      return -1;
    }
    free(in);
  }
  return 0;
}

void vta_calib_view(const vta_calib_set *c, vta_calib *out) {
  out->n_samples = c->n_samples;
  out->n_inputs = c->n_inputs;
  out->samples = (const float *const *)c->data;
}

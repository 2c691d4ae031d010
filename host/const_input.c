/* const_input.c - `--const-input NAME=VALUE` (const_input.h). */
#include "host/const_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli_args.h"

int vta_cli_npy_dtype(const char *descr, vta_dtype *out) {
  static const struct {
    const char *descr;
    vta_dtype t;
  } map[] = {{"<f4", VTA_DT_F32}, {"<f8", VTA_DT_F64}, {"<f2", VTA_DT_F16}, {"<i8", VTA_DT_I64},
             {"<i4", VTA_DT_I32}, {"<i2", VTA_DT_I16}, {"|i1", VTA_DT_I8},  {"|u1", VTA_DT_U8},
             {"<u2", VTA_DT_U16}, {"<u4", VTA_DT_U32}, {"<u8", VTA_DT_U64}, {"|b1", VTA_DT_BOOL}};
  for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
    if (strcmp(map[k].descr, descr) == 0) {
      *out = map[k].t;
      return 0;
    }
  return -1;
}

int vta_cli_const_input(const char *cmd, const char *arg, vta_cli_consts *c) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    return vta_cli_usage_error(cmd, "--const-input '%s' is not NAME=VALUE (a number or an .npy file)", arg);
  if (c->n >= VTA_CLI_MAX_CONST) return vta_cli_usage_error(cmd, "more than %d --const-input options", VTA_CLI_MAX_CONST);
  if ((size_t)(eq - arg) >= sizeof c->names[0] || strlen(eq + 1) >= sizeof c->text[0])
    return vta_cli_usage_error(cmd, "--const-input '%.40s...' is too long", arg);
  int k = c->n;
  for (int j = 0; j < k; j++)
    if (strlen(c->names[j]) == (size_t)(eq - arg) && strncmp(c->names[j], arg, (size_t)(eq - arg)) == 0)
      return vta_cli_usage_error(cmd, "--const-input '%s': input '%s' is already fixed", arg, c->names[j]);
  snprintf(c->names[k], sizeof c->names[k], "%.*s", (int)(eq - arg), arg);
  snprintf(c->text[k], sizeof c->text[k], "%s", eq + 1);
  vta_gvalue *v = &c->values[k];
  memset(v, 0, sizeof *v);
  memset(&c->npy[k], 0, sizeof c->npy[k]);
  v->name = c->names[k];
  const char *val = eq + 1;
  if (vta_cli_has_suffix(val, ".npy")) {
    vta_error err = {0};
    if (vta_npy_read(val, &c->npy[k], &err)) return vta_cli_fail(cmd, &err);
    if (vta_cli_npy_dtype(c->npy[k].descr, &v->dtype)) {
      fprintf(stderr, "vta %s: --const-input %s: %s holds %s, which no tensor type of the compiler is\n", cmd,
              c->names[k], val, c->npy[k].descr);
      vta_npy_free(&c->npy[k]);
      return VTA_EXIT_FAIL;
    }
    v->rank = c->npy[k].rank;
    for (int d = 0; d < v->rank; d++) v->dims[d] = c->npy[k].dims[d];
    v->data = c->npy[k].data;
  } else {
    char *e;
    errno = 0;
    long long i = strtoll(val, &e, 10);
    if (!*e && errno == 0) {
      v->dtype = VTA_DT_I64;
      c->scalar[k].i = i;
    } else {
      errno = 0;
      double f = strtod(val, &e);
      if (*e || errno)
        return vta_cli_usage_error(cmd, "--const-input %s: '%s' is neither a number nor an .npy file",
                                   c->names[k], val);
      v->dtype = VTA_DT_F64;
      c->scalar[k].f = f;
    }
    v->rank = 0;
    v->data = &c->scalar[k];
  }
  c->name_ptr[k] = c->names[k];
  c->n++;
  return 0;
}

void vta_cli_consts_free(vta_cli_consts *c) {
  for (int k = 0; k < c->n; k++) vta_npy_free(&c->npy[k]);
  c->n = 0;
}

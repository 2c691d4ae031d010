/* svgen_main.c - the `vta-svgen` build tool: writes the RTL parameter package of a configuration.
 *
 *     vta-svgen CONFIG.json OUTROOT   writes OUTROOT/<model key>/vta_pkg.sv, prints that folder
 *     vta-svgen --key CONFIG.json     prints the model key only
 *     vta-svgen --kernel-xml CONFIG.json   prints Vitis' kernel.xml of the configuration
 *     vta-svgen --regmap-md           prints the register table of docs/hw.md
 *     vta-svgen --kernel-tcl          prints the register map for Vivado's IP packager
 *
 * The package is rewritten only when its text changes, so a Verilator model that depends on it
 * is rebuilt only when the configuration really changed the hardware. All the logic is in
 * isa/svgen.c; this is the command-line wrapper the Makefile calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "isa/svgen.h"
#include "vta/regmap.h"

static int same_file(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char *buf = malloc(n + 1);
  size_t got = buf ? fread(buf, 1, n + 1, f) : 0;
  fclose(f);
  int same = buf && got == n && memcmp(buf, text, n) == 0;
  free(buf);
  return same;
}

int main(int argc, char **argv) {
  vta_config cfg;
  vta_error err;
  if (argc == 3 && strcmp(argv[1], "--key") == 0) {
    if (vta_config_load(&cfg, argv[2], &err) != VTA_OK) {
      fprintf(stderr, "vta-svgen: %s\n", err.msg);
      return 1;
    }
    char key[160];
    vta_svgen_model_key(&cfg, key, sizeof key);
    printf("%s\n", key);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--regmap-md") == 0) {
    vta_regmap_markdown(stdout);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--kernel-tcl") == 0) {
    if (vta_regmap_kernel_tcl(stdout, &err) != VTA_OK) {
      fprintf(stderr, "vta-svgen: %s\n", err.msg);
      return 1;
    }
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--kernel-xml") == 0) {
    if (vta_config_load(&cfg, argv[2], &err) != VTA_OK ||
        vta_regmap_kernel_xml(&cfg, stdout, &err) != VTA_OK) {
      fprintf(stderr, "vta-svgen: %s\n", err.msg);
      return 1;
    }
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr,
            "usage: vta-svgen CONFIG.json OUTROOT | vta-svgen --key CONFIG.json | vta-svgen "
            "--kernel-xml CONFIG.json | vta-svgen --kernel-tcl | vta-svgen --regmap-md\n");
    return 2;
  }
  if (vta_config_load(&cfg, argv[1], &err) != VTA_OK) {
    fprintf(stderr, "vta-svgen: %s\n", err.msg);
    return 1;
  }
  char key[160], dir[4096], path[4200];
  vta_svgen_model_key(&cfg, key, sizeof key);
  snprintf(dir, sizeof dir, "%s/%s", argv[2], key);
  if ((mkdir(argv[2], 0777) != 0 && errno != EEXIST) || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
    fprintf(stderr, "vta-svgen: cannot create %s: %s\n", dir, strerror(errno));
    return 1;
  }
  char *text = NULL;
  size_t n = 0;
  FILE *mem = open_memstream(&text, &n);
  if (!mem || vta_svgen_package(&cfg, mem, &err) != VTA_OK) {
    fprintf(stderr, "vta-svgen: %s\n", mem ? err.msg : "out of memory");
    if (mem) fclose(mem);
    free(text);
    return 1;
  }
  fclose(mem);
  snprintf(path, sizeof path, "%s/vta_pkg.sv", dir);
  if (!same_file(path, text, n)) {
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "vta-svgen: cannot write %s: %s\n", path, strerror(errno));
      free(text);
      return 1;
    }
  }
  free(text);
  printf("%s\n", dir);
  return 0;
}

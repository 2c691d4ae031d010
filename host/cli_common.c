/* cli_common.c - what every `vta` subcommand shares: choosing the configuration and the backend,
 * turning option text into numbers, reading whole files and writing them back atomically.
 *
 * The design idea: a subcommand is a thin shell around library calls, so the few things it
 * does besides calling the library live here once, with one error style ("vta <cmd>: <what is
 * wrong>"). Library code never prints; these helpers are where its vta_error becomes a line on
 * stderr. Outputs go to a temporary file beside the target that is renamed over it only once
 * it is complete, so a reader never sees half a file and a failure leaves the old file intact.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/file.h"
#include "vta/isa.h"
#include "vta/limits.h"

int vta_cli_is_help(const char *arg) {
  return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int vta_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "vta %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see 'vta %s --help')\n", cmd);
  va_end(ap);
  return VTA_EXIT_USAGE;
}

int vta_cli_fail(const char *cmd, const vta_error *err) {
  const char *msg = err && err->msg[0] ? err->msg : "failed (no reason given)";
  size_t len = strlen(msg);
  fprintf(stderr, "vta %s: %s%s", cmd, msg, len && msg[len - 1] == '\n' ? "" : "\n");
  return VTA_EXIT_FAIL;
}

int vta_cli_has_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path), m = strlen(suffix);
  return n >= m && strcmp(path + n - m, suffix) == 0;
}

int vta_cli_option(const char *cmd, int argc, char **argv, int *i, const char *name,
                   const char *alias, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (strcmp(arg, name) != 0 && !(alias && strcmp(arg, alias) == 0))
    return 0;
  if (*i + 1 >= argc) {
    vta_cli_usage_error(cmd, "option %s needs a value", arg);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int vta_cli_config(const char *cmd, const char *path, vta_config *cfg) {
  vta_error err = {0};
  const char *env = getenv("VTA_CONFIG");
  if (path) {
    if (vta_config_load(cfg, path, &err) != VTA_OK)
      return vta_cli_fail(cmd, &err), -1;
  } else if (env && env[0]) {
    if (vta_config_load(cfg, env, &err) != VTA_OK) {
      /* Say where the path came from: the user typed no file name. */
      vta_error_prefix(&err, "$VTA_CONFIG");
      return vta_cli_fail(cmd, &err), -1;
    }
  } else {
    vta_config_default(cfg);
    if (vta_config_derive(cfg, &err) != VTA_OK)
      return vta_cli_fail(cmd, &err), -1;
  }
  return 0;
}

const char *vta_cli_backend(const char *name) {
  const char *env = getenv("VTA_BACKEND");
  if (name)
    return name;
  return env && env[0] ? env : "fsim";
}

const char *vta_cli_xrt_options(const char *cmd, const char *backend, const char *xclbin,
                                const char *device, const char *opts, char *buf, size_t n,
                                int *bad) {
  *bad = 0;
  if ((xclbin || device) && (!backend || strcmp(backend, "xrt") != 0)) {
    *bad = 1;
    vta_cli_usage_error(cmd, "--xclbin and --device are options of --backend xrt");
    return NULL;
  }
  if (!xclbin && !device) return opts;
  int k = snprintf(buf, n, "%s%s%s%s%s%s", xclbin ? "xclbin=" : "", xclbin ? xclbin : "",
                   xclbin && device ? "," : "", device ? "device=" : "", device ? device : "",
                   opts ? "," : "");
  if (k >= 0 && (size_t)k < n && opts) k += snprintf(buf + k, n - (size_t)k, "%s", opts);
  if (k < 0 || (size_t)k >= n) {
    *bad = 1;
    vta_cli_usage_error(cmd, "--xclbin, --device and the backend options are too long together "
                             "(%zu bytes)", n - 1);
    return NULL;
  }
  return buf;
}

int vta_cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t max,
                      uint64_t *out) {
  int base = 10;
  const char *digits = text;
  char *end = NULL;
  unsigned long long v;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text + 2;
  }
  /* strtoull accepts leading blanks, a sign and an empty digit string; a command line
   * should not, so the first character must already be a digit. */
  if (!(base == 16 ? (digits[0] >= '0' && digits[0] <= '9') ||
                         (digits[0] >= 'a' && digits[0] <= 'f') ||
                         (digits[0] >= 'A' && digits[0] <= 'F')
                   : digits[0] >= '0' && digits[0] <= '9')) {
    vta_cli_usage_error(cmd, "%s: '%s' is not a number (decimal or 0x hex)", opt, text);
    return -1;
  }
  errno = 0;
  v = strtoull(digits, &end, base);
  if (*end != '\0') {
    vta_cli_usage_error(cmd, "%s: '%s' is not a number (decimal or 0x hex)", opt, text);
    return -1;
  }
  if (errno == ERANGE || v > max) {
    vta_cli_usage_error(cmd, "%s: %s is larger than the limit %llu", opt, text,
                        (unsigned long long)max);
    return -1;
  }
  *out = v;
  return 0;
}

int vta_cli_read_file(const char *cmd, const char *path, unsigned char **data, size_t *size) {
  vta_error err;
  if (vta_file_read(path, "an input file", VTA_LIMIT_FILE_BYTES, data, size, &err) != VTA_OK) {
    fprintf(stderr, "vta %s: %s\n", cmd, err.msg);
    return -1;
  }
  return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int vta_cli_write_file(const char *cmd, const char *path, const void *data, size_t size) {
  char *tmp;
  int fd, saved;
  mode_t mask;
  if (strcmp(path, "-") == 0) {
    if (size && fwrite(data, 1, size, stdout) != size) {
      fprintf(stderr, "vta %s: cannot write standard output: %s\n", cmd, strerror(errno));
      return -1;
    }
    if (fflush(stdout) != 0) {
      fprintf(stderr, "vta %s: cannot write standard output: %s\n", cmd, strerror(errno));
      return -1;
    }
    return 0;
  }
  /* The temporary file lives in the target's folder so that rename() stays within one file
   * system and is atomic. */
  tmp = malloc(strlen(path) + sizeof ".tmp.XXXXXX");
  if (!tmp) {
    fprintf(stderr, "vta %s: out of memory writing %s\n", cmd, path);
    return -1;
  }
  strcpy(tmp, path);
  strcat(tmp, ".tmp.XXXXXX");
  fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "vta %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    free(tmp);
    return -1;
  }
  /* mkstemp creates the file 0600; give it the permissions a plain fopen would have. The
   * rename makes the write all-or-nothing for readers; like cc and ld, no fsync: flushing a
   * 24 MB bundle to the disk took 50-100 ms of a 0.8 s compile, for durability across a power
   * cut that a build output does not need. */
  mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || write_all(fd, data, size) != 0)
    goto fail;
  if (close(fd) != 0) {
    fd = -1;
    goto fail;
  }
  fd = -1;
  if (rename(tmp, path) != 0)
    goto fail;
  free(tmp);
  return 0;
fail:
  saved = errno;
  if (fd >= 0)
    close(fd);
  unlink(tmp);
  free(tmp);
  fprintf(stderr, "vta %s: cannot write %s: %s\n", cmd, path, strerror(saved));
  return -1;
}

int vta_cli_check_insns(const char *cmd, const vta_config *cfg, const char *path,
                        const uint8_t *bytes, size_t nbytes) {
  size_t n = nbytes / VTA_INSN_BYTES, i;
  if (nbytes % VTA_INSN_BYTES != 0) {
    fprintf(stderr,
            "vta %s: %s: truncated instruction stream: %zu bytes is not a multiple of %d; "
            "the last instruction (%zu, at byte offset %zu) has only %zu of its %d bytes\n",
            cmd, path, nbytes, VTA_INSN_BYTES, n, n * VTA_INSN_BYTES, nbytes % VTA_INSN_BYTES,
            VTA_INSN_BYTES);
    return -1;
  }
  if (n > VTA_LIMIT_STREAM_INSNS) {
    fprintf(stderr, "vta %s: %s: %zu instructions; a stream may hold at most %llu "
                    "(VTA_LIMIT_STREAM_INSNS)\n", cmd, path, n,
            (unsigned long long)VTA_LIMIT_STREAM_INSNS);
    return -1;
  }
  for (i = 0; i < n; i++) {
    vta_insn_word w;
    vta_insn insn;
    vta_error err = {0};
    vta_insn_word_load(bytes + i * VTA_INSN_BYTES, &w);
    if (vta_insn_decode(cfg, &w, &insn, &err) != VTA_OK) {
      fprintf(stderr, "vta %s: %s: instruction %zu at byte offset %zu: %s\n", cmd, path, i,
              i * VTA_INSN_BYTES, err.msg);
      return -1;
    }
  }
  return 0;
}

int vta_cli_assemble_file(const char *cmd, const vta_config *cfg, const char *path,
                          uint8_t **bytes, size_t *nbytes) {
  unsigned char *text;
  size_t len, count = 0, i;
  vta_insn_word *words = NULL;
  vta_error err = {0};
  const unsigned char *nul;
  uint8_t *out;
  if (vta_cli_read_file(cmd, path, &text, &len) != 0)
    return -1;
  /* The assembler reads a C string: an embedded NUL would silently end the program early. */
  nul = memchr(text, 0, len);
  if (nul) {
    fprintf(stderr, "vta %s: %s: not a text file (NUL byte at offset %zu)\n", cmd, path,
            (size_t)(nul - text));
    free(text);
    return -1;
  }
  if (vta_asm(cfg, (const char *)text, strcmp(path, "-") == 0 ? "<stdin>" : path, &words,
              &count, &err) != VTA_OK) {
    free(text);
    free(words);
    return vta_cli_fail(cmd, &err), -1;
  }
  free(text);
  out = malloc(count ? count * VTA_INSN_BYTES : 1);
  if (!out) {
    fprintf(stderr, "vta %s: out of memory assembling %s\n", cmd, path);
    free(words);
    return -1;
  }
  for (i = 0; i < count; i++)
    vta_insn_word_store(&words[i], out + i * VTA_INSN_BYTES);
  free(words);
  *bytes = out;
  *nbytes = count * VTA_INSN_BYTES;
  return 0;
}

const char *vta_cli_timeline_options(const char *cmd, const char *backend, const char *timeline,
                                     const char *options, char *buf, size_t n) {
  if (!timeline) return options;
  /* Only the cycle-level simulators record what happens cycle by cycle. */
  if (strcmp(backend, "rtl") != 0 && strcmp(backend, "sc") != 0) {
    fprintf(stderr,
            "vta %s: --timeline %s: the %s backend has no cycles to draw; timelines come from "
            "the cycle-level backends (rtl, sc)\n",
            cmd, timeline, backend);
    return NULL;
  }
  if (strchr(timeline, ',')) {
    fprintf(stderr, "vta %s: --timeline %s: the file name may not contain ','\n", cmd, timeline);
    return NULL;
  }
  int k = snprintf(buf, n, "%s%stimeline=%s", options ? options : "", options && *options ? "," : "",
                   timeline);
  if (k < 0 || (size_t)k >= n) {
    fprintf(stderr, "vta %s: --timeline and the backend options are too long together\n", cmd);
    return NULL;
  }
  return buf;
}

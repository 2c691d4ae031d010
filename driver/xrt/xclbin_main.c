/* xclbin_main.c - the `vta-xclbin` build tool: metadata-only xclbins and xclbin checks.
 *
 *     vta-xclbin meta CONFIG.json OUT.xclbin [--platform VBNV] [--bank TAG:MIB[:hbm]]...
 *                [--gmem INDEX]
 *         writes an xclbin without a bitstream (IP_LAYOUT, MEM_TOPOLOGY, CONNECTIVITY,
 *         EMBEDDED_METADATA generated from the register table, USER_METADATA naming the
 *         configuration): XRT's noop emulation loads it and runs the host flow
 *     vta-xclbin check XCLBIN [CONFIG.json]
 *         reads and checks an xclbin (ours or one v++ built), prints what it holds, and with a
 *         configuration checks that the xclbin was built for it
 *
 * `make xclbin` calls it; all the logic is in xclbin_file.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/xrt/xclbin_file.h"
#include "vta/config.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vta-xclbin meta CONFIG.json OUT.xclbin [--platform VBNV] "
          "[--bank TAG:MIB[:hbm]]... [--gmem INDEX]\n"
          "       vta-xclbin check XCLBIN [CONFIG.json]\n");
  return 2;
}

int main(int argc, char **argv) {
  vta_error err;
  vta_config cfg;
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage();
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "meta") == 0) {
    vta_xclbin_spec s;
    vta_xclbin_spec_default(&s);
    int nb = 0;
    for (int i = 4; i < argc; i++) {
      if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) {
        snprintf(s.platform, sizeof s.platform, "%s", argv[++i]);
      } else if (strcmp(argv[i], "--gmem") == 0 && i + 1 < argc) {
        s.gmem_bank = atoi(argv[++i]);
      } else if (strcmp(argv[i], "--bank") == 0 && i + 1 < argc) {
        char tag[16];
        unsigned long long mib;
        char kind[8] = "";
        if (nb >= VTA_XCLBIN_MAX_BANKS ||
            sscanf(argv[++i], "%15[^:]:%llu:%7s", tag, &mib, kind) < 2 || mib == 0) {
          fprintf(stderr, "vta-xclbin: --bank %s is not TAG:MIB[:hbm] (at most %d banks)\n",
                  argv[i], VTA_XCLBIN_MAX_BANKS);
          return 2;
        }
        vta_xclbin_bank *b = &s.banks[nb];
        snprintf(b->tag, sizeof b->tag, "%s", tag);
        b->hbm = strcmp(kind, "hbm") == 0;
        b->size = mib << 20;
        b->base = nb ? s.banks[nb - 1].base + s.banks[nb - 1].size : 0;
        nb++;
      } else {
        return usage();
      }
    }
    if (nb) s.nbanks = nb;
    if (vta_config_load(&cfg, argv[2], &err) != VTA_OK ||
        vta_xclbin_write_meta(&cfg, &s, argv[3], &err) != VTA_OK) {
      fprintf(stderr, "vta-xclbin: %s\n", err.msg);
      return 1;
    }
    return 0;
  }
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "check") == 0) {
    vta_xclbin_info info;
    if (vta_xclbin_inspect(argv[2], &info, NULL, &err) != VTA_OK) {
      fprintf(stderr, "vta-xclbin: %s\n", err.msg);
      return 1;
    }
    printf("xclbin:   %s (%" PRIu64 " bytes, %s)\n", argv[2], info.bytes,
           info.has_bitstream ? "with a bitstream" : "metadata only");
    printf("uuid:     %s\nplatform: %s\nkernel:   %s at 0x%" PRIx64 "\nconfig:   %s\n",
           info.uuid_text, info.platform, info.cu_name, info.cu_base,
           info.config_key[0] ? info.config_key : "(none named)");
    for (int i = 0; i < info.nbanks; i++)
      printf("bank %d:   %s%s, %" PRIu64 " MiB at 0x%" PRIx64 "\n", i, info.banks[i].tag,
             info.banks[i].hbm ? " (HBM)" : "", info.banks[i].size >> 20, info.banks[i].base);
    if (argc == 4) {
      if (vta_config_load(&cfg, argv[3], &err) != VTA_OK ||
          vta_xclbin_check_config(argv[2], &info, &cfg, &err) != VTA_OK) {
        fprintf(stderr, "vta-xclbin: %s\n", err.msg);
        return 1;
      }
      printf("config check: ok (%s)\n", argv[3]);
    }
    return 0;
  }
  return usage();
}

/* xclbin_file.c - the xclbin container: a checking reader and a metadata-only writer.
 *
 * The design idea: the file is a header, an array of section headers and the sections' bytes
 * (XRT's struct axlf). Both directions use XRT's own structs from <xclbin.h>, so the layout is
 * the one XRT reads; nothing is described twice. The reader trusts nothing: every count and
 * offset is checked against the file's size before it is used.
 */
#include "driver/xrt/xclbin_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xclbin.h>

#include "isa/svgen.h"
#include "vta/regmap.h"

void vta_xclbin_spec_default(vta_xclbin_spec *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->platform, sizeof s->platform, "vta_noop_platform");
  s->nbanks = 1;
  snprintf(s->banks[0].tag, sizeof s->banks[0].tag, "bank0");
  s->banks[0].size = 16ull << 30;
  snprintf(s->kernel_name, sizeof s->kernel_name, "%s", VTA_KERNEL_NAME);
}

/* ---- writer ---- */

typedef struct section {
  uint32_t kind;
  const char *name;
  void *data;
  size_t size;
} section;

static void random_uuid(unsigned char u[16]) {
  FILE *f = fopen("/dev/urandom", "rb");
  size_t got = f ? fread(u, 1, 16, f) : 0;
  if (f) fclose(f);
  if (got != 16) {
    /* No /dev/urandom: the time and process id still make files of one machine distinct. */
    uint64_t t = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    for (int i = 0; i < 16; i++) u[i] = (unsigned char)(t >> (8 * (i % 8)) ^ (uint64_t)i * 77u);
  }
  u[6] = (unsigned char)((u[6] & 0x0F) | 0x40); /* version 4 */
  u[8] = (unsigned char)((u[8] & 0x3F) | 0x80);
}

int vta_xclbin_write_meta(const vta_config *cfg, const vta_xclbin_spec *s, const char *path,
                          vta_error *err) {
  if (s->nbanks < 1 || s->nbanks > VTA_XCLBIN_MAX_BANKS || s->gmem_bank < 0 ||
      s->gmem_bank >= s->nbanks)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "xclbin %s: %d memory banks with m_axi_gmem on bank %d (1 to %d banks)",
                         path, s->nbanks, s->gmem_bank, VTA_XCLBIN_MAX_BANKS);
  int rc = VTA_ERR_NOMEM;
  section sec[5];
  int nsec = 0;
  memset(sec, 0, sizeof sec);

  /* IP_LAYOUT: one ap_ctrl_hs compute unit with an interrupt. */
  struct ip_layout *ip = calloc(1, sizeof *ip);
  /* MEM_TOPOLOGY: the board's banks. */
  size_t mt_size = sizeof(struct mem_topology) + (size_t)(s->nbanks - 1) * sizeof(struct mem_data);
  struct mem_topology *mt = calloc(1, mt_size);
  struct connectivity *cn = calloc(1, sizeof *cn);
  char *xml = NULL, *user = NULL;
  size_t xml_n = 0;
  FILE *xf = open_memstream(&xml, &xml_n);
  if (!ip || !mt || !cn || !xf) goto out;
  ip->m_count = 1;
  ip->m_ip_data[0].m_type = IP_KERNEL;
  ip->m_ip_data[0].properties = ((uint32_t)AP_CTRL_HS << IP_CONTROL_SHIFT) | IP_INT_ENABLE_MASK;
  ip->m_ip_data[0].m_base_address = 0x1800000;
  snprintf((char *)ip->m_ip_data[0].m_name, sizeof ip->m_ip_data[0].m_name, "%s:%s_1",
           s->kernel_name, s->kernel_name);
  mt->m_count = s->nbanks;
  for (int b = 0; b < s->nbanks; b++) {
    struct mem_data *m = &mt->m_mem_data[b];
    m->m_type = s->banks[b].hbm ? MEM_HBM : MEM_DDR4;
    m->m_used = 1;
    m->m_size = s->banks[b].size / 1024;
    m->m_base_address = s->banks[b].base;
    snprintf((char *)m->m_tag, sizeof m->m_tag, "%s", s->banks[b].tag);
  }
  cn->m_count = 1;
  cn->m_connection[0].arg_index = VTA_ARG_INSN_ADDR;
  cn->m_connection[0].m_ip_layout_index = 0;
  cn->m_connection[0].mem_data_index = s->gmem_bank;
  /* The kernel description: generated from the register table, with the kernel's name
   * replaced when a test asks for a foreign file. */
  if (vta_regmap_xclbin_xml(cfg, s->platform, xf, err) != VTA_OK) {
    rc = err ? err->status : VTA_ERR_IO;
    goto out;
  }
  fclose(xf);
  xf = NULL;
  if (strcmp(s->kernel_name, VTA_KERNEL_NAME) != 0) {
    char from[64], to[64];
    snprintf(from, sizeof from, "<kernel name=\"%s\"", VTA_KERNEL_NAME);
    snprintf(to, sizeof to, "<kernel name=\"%.20s\"", s->kernel_name);
    char *at = strstr(xml, from);
    if (at) {
      size_t pre = (size_t)(at - xml), n2 = strlen(xml) - pre - strlen(from) + strlen(to) + pre + 1;
      char *nx = malloc(n2);
      if (!nx) goto out;
      snprintf(nx, n2, "%.*s%s%s", (int)pre, xml, to, at + strlen(from));
      free(xml);
      xml = nx;
    }
  }
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  size_t user_n = strlen(VTA_XCLBIN_CONFIG_TAG) + strlen(key) + 2;
  user = malloc(user_n);
  if (!user) goto out;
  snprintf(user, user_n, "%s%s\n", VTA_XCLBIN_CONFIG_TAG, key);

  sec[nsec++] = (section){IP_LAYOUT, "ip_layout", ip, sizeof *ip};
  sec[nsec++] = (section){MEM_TOPOLOGY, "mem_topology", mt, mt_size};
  sec[nsec++] = (section){CONNECTIVITY, "connectivity", cn, sizeof *cn};
  sec[nsec++] = (section){EMBEDDED_METADATA, "runtime_data", xml, strlen(xml)};
  if (!s->no_config) sec[nsec++] = (section){USER_METADATA, "vta_config", user, strlen(user)};

  size_t head = sizeof(struct axlf) + (size_t)(nsec - 1) * sizeof(struct axlf_section_header);
  size_t total = head;
  for (int i = 0; i < nsec; i++) total = ((total + 7) & ~(size_t)7) + sec[i].size;
  total = (total + 7) & ~(size_t)7;
  unsigned char *file = calloc(1, total);
  if (!file) goto out;
  struct axlf *a = (struct axlf *)file;
  memcpy(a->m_magic, "xclbin2", 8);
  a->m_signature_length = -1;
  memset(a->reserved, 0xFF, sizeof a->reserved);
  memset(a->m_keyBlock, 0xFF, sizeof a->m_keyBlock);
  a->m_uniqueId = (uint64_t)time(NULL);
  a->m_header.m_length = total;
  a->m_header.m_timeStamp = (uint64_t)time(NULL);
  a->m_header.m_versionMajor = 2;
  a->m_header.m_versionMinor = 13;
  a->m_header.m_mode = XCLBIN_HW_EMU;
  snprintf((char *)a->m_header.m_platformVBNV, sizeof a->m_header.m_platformVBNV, "%s",
           s->platform);
  unsigned char u[16];
  static const unsigned char zero[16];
  if (s->null_uuid)
    memset(u, 0, 16);
  else if (memcmp(s->uuid, zero, 16) != 0)
    memcpy(u, s->uuid, 16);
  else
    random_uuid(u);
  memcpy(&a->m_header.uuid, u, 16);
  a->m_header.m_numSections = (uint32_t)nsec;
  size_t off = head;
  for (int i = 0; i < nsec; i++) {
    off = (off + 7) & ~(size_t)7;
    struct axlf_section_header *h = &a->m_sections[i];
    h->m_sectionKind = sec[i].kind;
    snprintf(h->m_sectionName, sizeof h->m_sectionName, "%s", sec[i].name);
    h->m_sectionOffset = off;
    h->m_sectionSize = sec[i].size;
    memcpy(file + off, sec[i].data, sec[i].size);
    off += sec[i].size;
  }
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f || fwrite(file, 1, total, f) != total || fclose(f) != 0 || rename(tmp, path) != 0) {
    int e = errno;
    if (f) remove(tmp);
    rc = vta_error_set(err, VTA_ERR_IO, "cannot write the xclbin %s: %s", path, strerror(e));
  } else {
    rc = VTA_OK;
  }
  free(file);
out:
  if (rc == VTA_ERR_NOMEM) vta_error_set(err, rc, "out of memory writing the xclbin %s", path);
  if (xf) fclose(xf);
  free(ip);
  free(mt);
  free(cn);
  free(xml);
  free(user);
  return rc;
}

/* ---- reader ---- */

static int bad(vta_error *err, const char *path, const char *what) {
  return vta_error_set(err, VTA_ERR_INVALID, "%s is not a usable xclbin: %s", path, what);
}

int vta_xclbin_inspect(const char *path, vta_xclbin_info *info, void **data, vta_error *err) {
  memset(info, 0, sizeof *info);
  if (data) *data = NULL;
  FILE *f = fopen(path, "rb");
  if (!f)
    return vta_error_set(err, VTA_ERR_IO, "cannot open the xclbin %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return vta_error_set(err, VTA_ERR_IO, "the xclbin %s is not a regular file", path);
  }
  uint64_t size = (uint64_t)st.st_size;
  if (size > VTA_XCLBIN_MAX_BYTES) {
    fclose(f);
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the xclbin %s has %" PRIu64 " bytes, more than the %llu accepted", path,
                         size, VTA_XCLBIN_MAX_BYTES);
  }
  if (size < sizeof(struct axlf)) {
    fclose(f);
    char what[160];
    snprintf(what, sizeof what, "%" PRIu64 " bytes, shorter than the %zu-byte header", size,
             sizeof(struct axlf));
    return bad(err, path, what);
  }
  unsigned char *buf = malloc(size);
  if (!buf) {
    fclose(f);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory reading the xclbin %s", path);
  }
  size_t got = fread(buf, 1, size, f);
  fclose(f);
  int rc = VTA_OK;
  char what[256];
  const struct axlf *a = (const struct axlf *)buf;
  if (got != size) {
    rc = vta_error_set(err, VTA_ERR_IO, "cannot read the xclbin %s", path);
    goto done;
  }
  if (memcmp(a->m_magic, "xclbin2", 8) != 0) {
    rc = bad(err, path, "it does not start with the magic \"xclbin2\"");
    goto done;
  }
  if (a->m_header.m_length != size) {
    snprintf(what, sizeof what,
             "its header says %" PRIu64 " bytes but the file has %" PRIu64 " (truncated?)",
             (uint64_t)a->m_header.m_length, size);
    rc = bad(err, path, what);
    goto done;
  }
  uint32_t ns = a->m_header.m_numSections;
  if (ns == 0 || ns > XCLBIN_MAX_NUM_SECTION ||
      sizeof(struct axlf) + (uint64_t)(ns - 1) * sizeof(struct axlf_section_header) > size) {
    snprintf(what, sizeof what, "%u sections do not fit the file", ns);
    rc = bad(err, path, what);
    goto done;
  }
  info->bytes = size;
  memcpy(info->uuid, &a->m_header.uuid, 16);
  const unsigned char *u = info->uuid;
  snprintf(info->uuid_text, sizeof info->uuid_text,
           "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
           u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  memcpy(info->platform, a->m_header.m_platformVBNV, 64);
  info->platform[64] = '\0';
  const struct ip_layout *ip = NULL;
  const struct mem_topology *mt = NULL;
  uint64_t ip_n = 0, mt_n = 0;
  int have_xml = 0;
  for (uint32_t i = 0; i < ns; i++) {
    const struct axlf_section_header *h = &a->m_sections[i];
    if (h->m_sectionOffset > size || h->m_sectionSize > size - h->m_sectionOffset) {
      snprintf(what, sizeof what,
               "section %u (kind %u) at offset %" PRIu64 " with %" PRIu64
               " bytes runs past the end of the file",
               i, h->m_sectionKind, (uint64_t)h->m_sectionOffset, (uint64_t)h->m_sectionSize);
      rc = bad(err, path, what);
      goto done;
    }
    const unsigned char *p = buf + h->m_sectionOffset;
    switch (h->m_sectionKind) {
      case IP_LAYOUT:
        ip = (const struct ip_layout *)p;
        ip_n = h->m_sectionSize;
        break;
      case MEM_TOPOLOGY:
        mt = (const struct mem_topology *)p;
        mt_n = h->m_sectionSize;
        break;
      case EMBEDDED_METADATA:
        have_xml = 1;
        break;
      case BITSTREAM:
      case PDI:
      case BITSTREAM_PARTIAL_PDI:
        info->has_bitstream = 1;
        break;
      case USER_METADATA: {
        size_t tl = strlen(VTA_XCLBIN_CONFIG_TAG);
        if (h->m_sectionSize > tl && memcmp(p, VTA_XCLBIN_CONFIG_TAG, tl) == 0) {
          size_t n = 0;
          while (tl + n < h->m_sectionSize && n + 1 < sizeof info->config_key &&
                 p[tl + n] != '\n' && p[tl + n] != '\0')
            n++;
          memcpy(info->config_key, p + tl, n);
          info->config_key[n] = '\0';
        }
        break;
      }
      default:
        break;
    }
  }
  if (!ip || ip_n < sizeof(int32_t) || ip->m_count < 0 ||
      (uint64_t)ip->m_count * sizeof(struct ip_data) + 8 > ip_n) {
    rc = bad(
        err, path,
        ip ? "its IP_LAYOUT section is corrupt" : "it has no IP_LAYOUT section (no compute unit)");
    goto done;
  }
  if (!mt || mt_n < sizeof(int32_t) || mt->m_count < 0 ||
      (uint64_t)mt->m_count * sizeof(struct mem_data) + 8 > mt_n) {
    rc = bad(err, path,
             mt ? "its MEM_TOPOLOGY section is corrupt"
                : "it has no MEM_TOPOLOGY section (no memory banks)");
    goto done;
  }
  if (!have_xml) {
    rc = bad(err, path, "it has no EMBEDDED_METADATA section (no kernel description)");
    goto done;
  }
  for (int32_t i = 0; i < ip->m_count; i++) {
    const struct ip_data *d = &ip->m_ip_data[i];
    char name[65];
    memcpy(name, d->m_name, 64);
    name[64] = '\0';
    size_t kl = strlen(VTA_KERNEL_NAME);
    if (d->m_type == IP_KERNEL && strncmp(name, VTA_KERNEL_NAME, kl) == 0 && name[kl] == ':') {
      info->has_kernel = 1;
      memcpy(info->cu_name, name, sizeof info->cu_name);
      info->cu_base = d->m_base_address;
      break;
    }
  }
  for (int32_t i = 0; i < mt->m_count && info->nbanks < VTA_XCLBIN_MAX_BANKS; i++) {
    const struct mem_data *m = &mt->m_mem_data[i];
    if (!m->m_used || m->m_type == MEM_STREAMING || m->m_type == MEM_STREAMING_CONNECTION) continue;
    vta_xclbin_bank *b = &info->banks[info->nbanks++];
    memcpy(b->tag, m->m_tag, sizeof b->tag - 1);
    b->hbm = m->m_type == MEM_HBM;
    b->base = m->m_base_address;
    b->size = (uint64_t)m->m_size * 1024;
  }
  if (!info->has_kernel) {
    snprintf(what, sizeof what,
             "it has no `%s` kernel (its compute units are not VTA's: built for another "
             "design?)",
             VTA_KERNEL_NAME);
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %s", path, what);
    goto done;
  }
done:
  if (rc == VTA_OK && data)
    *data = buf;
  else
    free(buf);
  return rc;
}

int vta_xclbin_check_config(const char *path, const vta_xclbin_info *info, const vta_config *cfg,
                            vta_error *err) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  if (!info->config_key[0])
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s names no VTA configuration (no \"%s<model key>\" USER_METADATA "
                         "section; `make xclbin` adds it): cannot check that it runs "
                         "configuration %s",
                         path, VTA_XCLBIN_CONFIG_TAG, key);
  if (strcmp(info->config_key, key) != 0)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s was built for configuration %s but the program needs %s: rebuild "
                         "the xclbin with `make xclbin BOARD=<board> VTA_CONFIG=<its .json>` or "
                         "compile the model for the xclbin's configuration",
                         path, info->config_key, key);
  return VTA_OK;
}

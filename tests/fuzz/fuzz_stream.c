/* fuzz_stream.c - a binary instruction stream decoded and run on fsim (sim/fsim, through the
 * device interface) with a step budget, as `vta exec` runs one.
 *
 * Input: two bytes giving the memory image's size in 64-byte units (at most 64 KiB), the image
 * (zero-filled when the input is shorter), then the instructions (16 bytes each; a partial
 * last one is dropped). The stream is checked by decoding first, as `vta exec` does; a run
 * ends at FINISH or is refused (deadlock, bounds, timeout): both are fine. */
#include "fuzz/fuzz.h"

#include "vta/config.h"
#include "vta/device.h"
#include "vta/isa.h"

/* Steps (instructions + micro-ops + elements moved) per run: enough for real programs of a
 * few hundred instructions, small enough that one run takes milliseconds. */
#define FUZZ_STEPS 200000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  size_t image_size = ((size_t)data[0] | (size_t)data[1] << 8) % 1024 * 64 + 64;
  data += 2;
  size -= 2;
  size_t take = size < image_size ? size : image_size;
  const uint8_t *prog = data + take;
  size_t count = (size - take) / VTA_INSN_BYTES;
  if (count == 0) return 0;
  vta_config cfg;
  vta_config_default(&cfg);
  for (size_t i = 0; i < count; i++) {
    vta_insn_word w;
    vta_insn insn;
    vta_insn_word_load(prog + i * VTA_INSN_BYTES, &w);
    if (vta_insn_decode(&cfg, &w, &insn, NULL) != VTA_OK) return 0;
  }
  uint8_t *image = calloc(1, image_size);
  if (!image) return 0;
  memcpy(image, data, take);
  vta_device *dev = NULL;
  vta_error err;
  uint64_t insn_phys = 0;
  if (vta_device_open("fsim", &cfg, NULL, &dev, &err) == VTA_OK) {
    if (vta_device_alloc_at(dev, 0, image_size, &err) == VTA_OK &&
        vta_device_copy_to(dev, 0, image, image_size, &err) == VTA_OK &&
        vta_device_alloc(dev, count * VTA_INSN_BYTES, &insn_phys, &err) == VTA_OK &&
        vta_device_copy_to(dev, insn_phys, prog, count * VTA_INSN_BYTES, &err) == VTA_OK &&
        vta_device_run(dev, insn_phys, (uint32_t)count, FUZZ_STEPS, NULL, &err) == VTA_OK)
      vta_device_copy_from(dev, image, 0, image_size, &err);
    vta_device_close(dev);
  }
  free(image);
  return 0;
}

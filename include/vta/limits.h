/* limits.h - the largest inputs this implementation accepts, in one place.
 *
 * Every file, tensor and graph read from outside is checked against these before anything is
 * allocated for it, and refused with a message that names the limit. docs/limits.md lists them
 * for users. They are generous for real models (ResNet-50's ONNX file is ~100 MB, its largest
 * activation a few MB) and small enough that a hostile file cannot make a command allocate
 * more memory than a workstation has.
 */
#ifndef VTA_LIMITS_H
#define VTA_LIMITS_H

#include <stdint.h>

/* Files. */
#define VTA_LIMIT_CONFIG_BYTES ((size_t)1 << 20)  /* hardware configuration JSON: 1 MiB */
#define VTA_LIMIT_MODEL_BYTES ((size_t)1 << 31)   /* ONNX model or bundle: 2 GiB (protobuf's) */
#define VTA_LIMIT_TEXT_BYTES ((size_t)1 << 28)    /* assembler text, tuning file: 256 MiB */
#define VTA_LIMIT_FILE_BYTES ((size_t)1 << 31)    /* any other input file (streams, images) */
#define VTA_LIMIT_NPY_BYTES ((size_t)VTA_LIMIT_TENSOR_BYTES + 65536) /* data + largest header */

/* Tensors and graphs. */
#define VTA_LIMIT_TENSOR_BYTES ((int64_t)1 << 31) /* one tensor's data (.npy, ONNX value) */
#define VTA_LIMIT_DIM ((int64_t)1 << 24)          /* one dimension of a tensor */
#define VTA_LIMIT_NODES 1000000                   /* nodes of an ONNX graph */
#define VTA_LIMIT_GRAPH_IO 4096                   /* inputs or outputs of an ONNX graph */

/* Instruction streams. */
#define VTA_LIMIT_STREAM_INSNS ((uint64_t)1 << 24) /* instructions in one stream (256 MiB) */

#endif

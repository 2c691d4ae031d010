/* calib.h - calibration inputs for post-training quantization (calib.c).
 *
 *     vta_calib_set cs; vta_calib cal;
 *     if (vta_calib_load_dir(g, "calib/", &cs, &err)) ...   // one .npy per sample
 *     vta_calib_view(&cs, &cal);    // what vta_pass_quantize reads
 *     ...
 *     vta_calib_set_free(&cs);
 */
#ifndef VTA_HOST_CALIB_H
#define VTA_HOST_CALIB_H

#include "compiler/compiler.h"

typedef struct vta_calib_set {
  int n_samples, n_inputs;
  float **data; /* [sample * n_inputs + input], each malloc'd */
} vta_calib_set;

/* One input: every *.npy of dir (sorted) is a sample. Several inputs: every subdirectory is a
 * sample with NAME.npy per input. Shapes must match the graph's inputs. */
int vta_calib_load_dir(const vta_graph *g, const char *dir, vta_calib_set *c, vta_error *err);
/* The default calibration inputs of a model, first found of:
 *   1. the ONNX model zoo's test_data_set_N/input_K.pb beside the model;
 *   2. DIR/<stem>/ for each DIR of $VTA_CALIB_PATH (colon-separated; unset: "tests/data/calib",
 *      the calibration sets shipped with the repository, when run from its root), where <stem>
 *      is the model's file name without directory and extension - the reference models
 *      .cache/models/ppocr_cls.onnx and blazeface.onnx find tests/data/calib/ppocr_cls/ and
 *      tests/data/calib/blazeface/;
 *   3. four samples of N(0, 1) noise (*random set: the caller warns).
 * source (size bytes) receives where the samples came from, for the caller's log. */
int vta_calib_load_default(const vta_graph *g, const char *model_path, vta_calib_set *c, int *random,
                           char *source, size_t size, vta_error *err);
/* Four samples of N(0, 1) noise: the input distribution of the built-in models (their inputs
 * stand for normalised pictures), so no warning is due. */
int vta_calib_load_noise(const vta_graph *g, vta_calib_set *c, char *source, size_t size, vta_error *err);
void vta_calib_view(const vta_calib_set *c, vta_calib *out);
void vta_calib_set_free(vta_calib_set *c);

#endif

#!/usr/bin/python3
# model-inputs.py - turns real pictures shipped in Debian's python3-skimage into the .npy inputs
# of the two reference models (kept in tests/data/, so tests need no image decoder).
#
#   scripts/model-inputs.py [MODELS_DIR [CALIB_DIR]]   defaults: tests/data/models, tests/data/calib
#
# Test inputs (MODELS_DIR):
#   astronaut.npy  skimage's astronaut.png, 128x128, NHWC, scaled to [-1, 1] (BlazeFace front)
#   text.npy       skimage's text.png (a photo of printed text), 48x192, NCHW, 3 channels,
#                  (x/255 - 0.5) / 0.5 as PaddleOCR's classifier preprocessing
#   text180.npy    the same turned upside down
# Calibration inputs (CALIB_DIR/<model>/, the default of `vta compile --quantize` for these
# models): other pictures of the same package, none of them a test picture, so the int8
# figures measure a model calibrated on data it is not then judged on:
#   ppocr_cls/  lines of page.png (a photographed book page) and bw_text.png (rendered text),
#               two upright and two turned over (the classifier's two classes)
#   blazeface/  camera.png (a photographer; his face is small), four faces of the Labeled
#               Faces in the Wild subset (lfw_subset.npy, 25x25 grey) in a 2x2 grid, and two
#               photos without a human face (coffee.png, chelsea.png)
import os, sys
import numpy as np
from skimage import color, data, io, transform

out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/models"
calib = sys.argv[2] if len(sys.argv) > 2 else "tests/data/calib"
os.makedirs(out, exist_ok=True)
a = data.astronaut().astype(np.float32) / 255.0
a = transform.resize(a, (128, 128), anti_aliasing=True).astype(np.float32)
np.save(os.path.join(out, "astronaut.npy"), (a * 2.0 - 1.0)[None].astype(np.float32))
t = data.text().astype(np.float32) / 255.0           # 172 x 448 grayscale
t = t[40:140, :]                                     # the lines of text
t = transform.resize(t, (48, 192), anti_aliasing=True).astype(np.float32)
t = np.stack([t, t, t])[None]
np.save(os.path.join(out, "text.npy"), ((t - 0.5) / 0.5).astype(np.float32))
# The same text turned upside down: the classifier's other class.
np.save(os.path.join(out, "text180.npy"), np.ascontiguousarray(((t - 0.5) / 0.5)[:, :, ::-1, ::-1]).astype(np.float32))

# ---- calibration sets ----
skdata = os.path.dirname(data.__file__)

def text_sample(grey, rows, cols, turned):
    """A block of text lines (grey in [0, 1]) as the classifier's 1x3x48x192 input."""
    t = grey[rows[0]:rows[1], cols[0]:cols[1]]
    t = transform.resize(t, (48, 192), anti_aliasing=True).astype(np.float32)
    t = np.stack([t, t, t])[None]
    if turned:
        t = t[:, :, ::-1, ::-1]
    return np.ascontiguousarray((t - 0.5) / 0.5).astype(np.float32)

d = os.path.join(calib, "ppocr_cls")
os.makedirs(d, exist_ok=True)
page = io.imread(os.path.join(skdata, "page.png")).astype(np.float32) / 255.0   # 191 x 384
bw = color.rgb2gray(io.imread(os.path.join(skdata, "bw_text.png"))[..., :3]).astype(np.float32)
np.save(os.path.join(d, "page_title.npy"), text_sample(page, (8, 40), (0, 384), False))
np.save(os.path.join(d, "page_lines_turned.npy"), text_sample(page, (44, 102), (0, 384), True))
np.save(os.path.join(d, "bw_text_lines.npy"), text_sample(bw, (20, 80), (15, 515), False))
np.save(os.path.join(d, "bw_text_lines_turned.npy"), text_sample(bw, (136, 196), (15, 515), True))

def face_input(rgb):
    """An RGB picture in [0, 1] as BlazeFace's 1x128x128x3 input in [-1, 1]."""
    a = transform.resize(rgb, (128, 128), anti_aliasing=True).astype(np.float32)
    return ((a * 2.0 - 1.0)[None]).astype(np.float32)

def square(a):
    """The centred square of a picture (the detector's input is square)."""
    h, w = a.shape[:2]
    s = min(h, w)
    return a[(h - s) // 2:(h - s) // 2 + s, (w - s) // 2:(w - s) // 2 + s]

d = os.path.join(calib, "blazeface")
os.makedirs(d, exist_ok=True)
cam = io.imread(os.path.join(skdata, "camera.png")).astype(np.float32) / 255.0
np.save(os.path.join(d, "camera.npy"), face_input(np.stack([cam, cam, cam], axis=-1)))
lfw = np.load(os.path.join(skdata, "lfw_subset.npy")).astype(np.float32)      # faces first
grid = np.concatenate([np.concatenate([lfw[0], lfw[7]], axis=1),
                       np.concatenate([lfw[21], lfw[42]], axis=1)], axis=0)
np.save(os.path.join(d, "lfw_faces.npy"), face_input(np.stack([grid, grid, grid], axis=-1)))
for name in ("coffee", "chelsea"):
    rgb = io.imread(os.path.join(skdata, name + ".png"))[..., :3].astype(np.float32) / 255.0
    np.save(os.path.join(d, name + ".npy"), face_input(square(rgb)))

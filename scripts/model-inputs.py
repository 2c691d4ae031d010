#!/usr/bin/python3
# model-inputs.py - turns real pictures shipped in Debian's python3-skimage into the .npy inputs
# of the two reference models (kept in tests/data/models/, so tests need no image decoder):
#   astronaut.npy  skimage's astronaut.png, 128x128, NHWC, scaled to [-1, 1] (BlazeFace front)
#   text.npy       skimage's text.png (a photo of printed text), 48x192, NCHW, 3 channels,
#                  (x/255 - 0.5) / 0.5 as PaddleOCR's classifier preprocessing
import os, sys
import numpy as np
from skimage import data, transform

out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/models"
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

#!/usr/bin/python3
# zoo-inputs.py - the real inputs of the zoo models (docs/zoo.md) from pictures shipped in
# Debian's python3-skimage, kept in tests/data/zoo/ so that tests need no image decoder.
#
#   scripts/zoo-inputs.py [DIR [CALIB_DIR]]   defaults: tests/data/zoo, tests/data/calib
#
#   page_det.npy   skimage's page.png (a photographed book page), 192x256 (multiples of 32, as
#                  the detector needs), grey as RGB, NCHW, ImageNet mean/std (PaddleOCR's
#                  detection preprocessing); for ppocr_det. (text.png, a photographed sign,
#                  gives no detection at this size: every probability below 1e-6.)
#   camera_mlsd.npy skimage's camera.png (a photographer with a tripod: straight lines), 320x320,
#                  NHWC, RGB in 0..255 and an alpha channel of ones (M-LSD's input); for mlsd_*
#   speech_audio.npy "Alexa, what is the weather today?" spoken by espeak-ng (Debian package
#                  espeak-ng), 16 kHz, 2.2 s, int16 range, [1, 35200]: melspectrogram's input;
#                  scripts/ort-speech-inputs.mjs makes the embedding and wake-word models' inputs
#                  from it
# Calibration inputs (CALIB_DIR/<model>/, pictures that are not the test inputs):
#   ppocr_det/   text.png, bw_text.png (rendered text) and camera.png, as page_det.npy
#   mlsd_tiny/   astronaut.png and coffee.png, as camera_mlsd.npy
# (oww_embedding/ is written by scripts/ort-speech-inputs.mjs: other windows of the speech.)
# The recogniser ppocr_rec reads tests/data/models/text.npy (scripts/model-inputs.py), the
# classifier's input: the same 48x192 line, the same preprocessing.
import os, subprocess, sys, tempfile, wave
import numpy as np
from scipy import signal
from skimage import color, data, io, transform

out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/zoo"
calib = sys.argv[2] if len(sys.argv) > 2 else "tests/data/calib"
os.makedirs(out, exist_ok=True)

def grey(img):
    return color.rgb2gray(img) * 255.0 if img.ndim == 3 else img.astype(np.float64)

def det_input(img):
    t = transform.resize(grey(img).astype(np.float32) / 255.0, (192, 256), anti_aliasing=True).astype(np.float32)
    rgb = np.stack([t, t, t], axis=0)
    mean = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
    std = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]
    return ((rgb - mean) / std)[None].astype(np.float32)

def mlsd_input(img):
    c = transform.resize(grey(img).astype(np.float32) / 255.0, (320, 320), anti_aliasing=True).astype(np.float32) * 255.0
    return np.stack([c, c, c, np.ones_like(c)], axis=-1)[None].astype(np.float32)

for name, imgs in (("ppocr_det", {"text": data.text(), "bw_text": io.imread(os.path.join(data.data_dir, "bw_text.png")),
                                  "camera": data.camera()}),
                   ("mlsd_tiny", {"astronaut": data.astronaut(), "coffee": data.coffee()})):
    d = os.path.join(calib, name)
    os.makedirs(d, exist_ok=True)
    for k, img in imgs.items():
        np.save(os.path.join(d, k + ".npy"), det_input(img) if name == "ppocr_det" else mlsd_input(img))

t = data.page().astype(np.float32) / 255.0                       # 191 x 384 grey
t = transform.resize(t, (192, 256), anti_aliasing=True).astype(np.float32)
rgb = np.stack([t, t, t], axis=0)                                 # 3 x 128 x 320
mean = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
std = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]
np.save(os.path.join(out, "page_det.npy"), ((rgb - mean) / std)[None].astype(np.float32))

c = data.camera().astype(np.float32) / 255.0                      # 512 x 512 grey
c = transform.resize(c, (320, 320), anti_aliasing=True).astype(np.float32) * 255.0
rgba = np.stack([c, c, c, np.ones_like(c)], axis=-1)              # 320 x 320 x 4
np.save(os.path.join(out, "camera_mlsd.npy"), rgba[None].astype(np.float32))

with tempfile.TemporaryDirectory() as tmp:
    wav = os.path.join(tmp, "speech.wav")
    subprocess.run(["espeak-ng", "-w", wav, "Alexa, what is the weather today?"], check=True)
    with wave.open(wav) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float64)
g = np.gcd(16000, rate)
pcm = signal.resample_poly(pcm, 16000 // g, rate // g)
a = np.zeros(35200, np.float32)
a[:min(len(pcm), 35200)] = pcm[:35200]
np.save(os.path.join(out, "speech_audio.npy"), a[None])

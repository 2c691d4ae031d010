#!/usr/bin/env node
// blazeface-boxes.mjs - turns the raw outputs of the BlazeFace front detector (as written by
// `vta run --output DIR`) into face boxes a person can read.
//
//   node scripts/blazeface-boxes.mjs DIR [WIDTH HEIGHT]     pixel size of the original picture
//
// The model predicts, for 896 fixed anchors (a 16x16 grid with 2 anchors per cell, then an
// 8x8 grid with 6 per cell, MediaPipe's SSD anchors for the 128x128 front model), a score
// logit and a box (centre offset and size, in 128ths) with six keypoints. Faces are the
// anchors scoring above 0.75 after the sigmoid, with overlapping boxes (IoU > 0.3) merged
// into the best-scoring one, as MediaPipe's face detection does.
import fs from 'node:fs';
import path from 'node:path';

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const hlen = b[6] === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const hoff = b[6] === 1 ? 10 : 12;
  const header = b.toString('latin1', hoff, hoff + hlen);
  if (!header.includes("'<f4'")) throw new Error(`${file}: not float32`);
  const start = hoff + hlen;
  return new Float32Array(b.buffer.slice(b.byteOffset + start, b.byteOffset + b.length));
}

const [dir, w = '128', h = '128'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/blazeface-boxes.mjs DIR [WIDTH HEIGHT]');
  process.exit(2);
}
const W = Number(w), H = Number(h);
const out = (name) => readNpy(path.join(dir, name + '.npy'));
// Identity:0 / Identity_2:0 are the 16x16 grid's scores and boxes, Identity_1:0 / Identity_3:0
// the 8x8 grid's (names as vta run writes them: ':' becomes '_').
const layers = [
  { scores: out('Identity_0'), boxes: out('Identity_2_0'), grid: 16, per: 2 },
  { scores: out('Identity_1_0'), boxes: out('Identity_3_0'), grid: 8, per: 6 },
];
const sigmoid = (x) => 1 / (1 + Math.exp(-Math.max(-100, Math.min(100, x))));
const found = [];
for (const l of layers) {
  for (let i = 0; i < l.scores.length; i++) {
    const score = sigmoid(l.scores[i]);
    if (score < 0.75) continue;
    const cell = Math.floor(i / l.per), ax = ((cell % l.grid) + 0.5) / l.grid;
    const ay = (Math.floor(cell / l.grid) + 0.5) / l.grid, r = l.boxes.subarray(i * 16, i * 16 + 16);
    const cx = r[0] / 128 + ax, cy = r[1] / 128 + ay, bw = r[2] / 128, bh = r[3] / 128;
    const kp = [];
    for (let k = 0; k < 6; k++) kp.push([r[4 + 2 * k] / 128 + ax, r[5 + 2 * k] / 128 + ay]);
    found.push({ score, x0: cx - bw / 2, y0: cy - bh / 2, x1: cx + bw / 2, y1: cy + bh / 2, kp });
  }
}
found.sort((a, b) => b.score - a.score);
const iou = (a, b) => {
  const ix = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
  const iy = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  const inter = ix * iy, u = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return u > 0 ? inter / u : 0;
};
const faces = [];
for (const f of found) if (!faces.some((g) => iou(f, g) > 0.3)) faces.push(f);
const px = (x, s) => Math.round(Math.max(0, Math.min(1, x)) * s);
console.log(`${faces.length} face${faces.length === 1 ? '' : 's'} found (${found.length} anchors above 0.75)`);
for (const f of faces) {
  const eye = (k) => `(${px(f.kp[k][0], W)}, ${px(f.kp[k][1], H)})`;
  console.log(`  face, score ${f.score.toFixed(3)}: x ${px(f.x0, W)}..${px(f.x1, W)}, y ${px(f.y0, H)}..${px(f.y1, H)} ` +
              `of ${W}x${H} pixels; eyes at ${eye(0)} and ${eye(1)}, nose at ${eye(2)}`);
}

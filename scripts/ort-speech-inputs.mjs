#!/usr/bin/env node
// ort-speech-inputs.mjs - the real inputs of the zoo's three openWakeWord models, each from the
// previous model's onnxruntime output, as openWakeWord chains them (16 kHz audio -> log-mel
// frames -> 96-value embeddings of 76-frame windows -> wake-word score):
//
//   node scripts/ort-speech-inputs.mjs MODELS_DIR AUDIO.npy OUTDIR   (MODELS_DIR: .cache/models,
//     holding oww_melspec.onnx and oww_embedding.onnx from scripts/fetch-models.sh)
//     AUDIO.npy                 [1, N] float32 16 kHz samples in int16 range (scripts/zoo-inputs.py)
//     OUTDIR/speech_mel.npy     [1, 76, 32, 1]: the first 76 frames of melspectrogram's output,
//                               scaled as openWakeWord does (x / 10 + 2): embedding_model's input
//     OUTDIR/speech_emb.npy     [1, 16, 96]: embeddings of 16 windows 8 frames apart: the
//                               wake-word heads' input
//     tests/data/calib/oww_embedding/w100.npy, w140.npy: the windows at frames 100 and 140
//                               (not the test window): embedding_model's int8 calibration
// Needs onnxruntime-node in .cache/ort (scripts/ort-setup.sh).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(path.resolve('.cache/ort/package.json'));
const ort = require('onnxruntime-node');

function readNpy(file) {
  const b = fs.readFileSync(file);
  const hlen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + hlen);
  if (!header.includes("'<f4'")) throw new Error(`${file}: only float32 .npy is supported`);
  const shape = header.match(/\(([^)]*)\)/)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  return new ort.Tensor('float32', new Float32Array(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length)), shape);
}
function writeNpy(file, data, dims) {
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  const total = Math.ceil((10 + h.length + 1) / 64) * 64;
  h = h.padEnd(total - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}
const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' };
async function run(model, t) {
  const s = await ort.InferenceSession.create(model, opts);
  const out = await s.run({ [s.inputNames[0]]: t });
  return out[s.outputNames[0]];
}

const [dir, audio, outdir] = process.argv.slice(2);
fs.mkdirSync(outdir, { recursive: true });
const mel = await run(path.join(dir, 'oww_melspec.onnx'), readNpy(audio)); // [1, 1, F, 32]
const F = mel.dims[2], W = 76, N = 16, STEP = 8;
if (F < W + (N - 1) * STEP) throw new Error(`${audio}: ${F} mel frames, ${W + (N - 1) * STEP} needed`);
const scaled = Float32Array.from(mel.data, v => v / 10 + 2);
writeNpy(path.join(outdir, 'speech_mel.npy'), scaled.slice(0, W * 32), [1, W, 32, 1]);
const emb = new Float32Array(N * 96);
for (let k = 0; k < N; k++) {
  const win = new ort.Tensor('float32', scaled.slice(k * STEP * 32, (k * STEP + W) * 32), [1, W, 32, 1]);
  emb.set((await run(path.join(dir, 'oww_embedding.onnx'), win)).data, k * 96);
}
writeNpy(path.join(outdir, 'speech_emb.npy'), emb, [1, N, 96]);
fs.mkdirSync('tests/data/calib/oww_embedding', { recursive: true });
for (const f of [100, 140])
  if (f + W <= F) writeNpy(`tests/data/calib/oww_embedding/w${f}.npy`, scaled.slice(f * 32, (f + W) * 32), [1, W, 32, 1]);

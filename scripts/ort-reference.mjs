#!/usr/bin/env node
// ort-reference.mjs - reference outputs and timings from onnxruntime-node@1.30.0 (installed
// into .cache/ort with ONNXRUNTIME_NODE_INSTALL=skip by scripts/ort-setup.sh).
//
//   node scripts/ort-reference.mjs MODEL.onnx INPUT.npy OUTDIR   writes OUTDIR/<output>.npy
//   node scripts/ort-reference.mjs --time N MODEL.onnx INPUT.npy  prints {"ort_ms": median}
// INPUT.npy feeds the model's first input; more inputs are given after, by name:
// NAME=FILE.npy (float32) or NAME=int64:V (an int64 scalar), e.g. Silero VAD's state and sr.
// Single thread (intra/inter op 1), all graph optimisations, as the benchmark compares.
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
  const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length));
  return new ort.Tensor('float32', data, shape);
}
function writeNpy(file, t) {
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = Math.ceil((10 + h.length + 1) / 64) * 64;
  h = h.padEnd(total - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)]));
}

const argv = process.argv.slice(2);
let reps = 0;
if (argv[0] === '--time') { reps = Number(argv[1]); argv.splice(0, 2); }
const args = argv.filter(a => !a.includes('='));
const [model, input, outdir] = args;
const sess = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
const feeds = { [sess.inputNames[0]]: readNpy(input) };
for (const a of argv.filter(a => a.includes('='))) {
  const [name, val] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
  if (!sess.inputNames.includes(name)) throw new Error(`${model} has no input '${name}' (it has ${sess.inputNames.join(', ')})`);
  feeds[name] = val.startsWith('int64:') ? new ort.Tensor('int64', BigInt64Array.from([BigInt(val.slice(6))]), [])
                                         : readNpy(val);
}
if (reps > 0) {
  await sess.run(feeds);
  const ts = [];
  for (let i = 0; i < reps; i++) { const t0 = process.hrtime.bigint(); await sess.run(feeds); ts.push(Number(process.hrtime.bigint() - t0) / 1e6); }
  ts.sort((a, b) => a - b);
  console.log(JSON.stringify({ ort_ms: ts[Math.floor(ts.length / 2)] }));
} else {
  const out = await sess.run(feeds);
  fs.mkdirSync(outdir, { recursive: true });
  for (const name of sess.outputNames) writeNpy(path.join(outdir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), out[name]);
}

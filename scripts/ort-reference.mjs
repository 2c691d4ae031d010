#!/usr/bin/env node
// ort-reference.mjs - reference outputs and timings from onnxruntime-node@1.30.0 (installed
// into .cache/ort with ONNXRUNTIME_NODE_INSTALL=skip by scripts/ort-setup.sh).
//
//   node scripts/ort-reference.mjs MODEL.onnx INPUT.npy OUTDIR   writes OUTDIR/<output>.npy
//   node scripts/ort-reference.mjs --time N MODEL.onnx [INPUT.npy]  prints {"ort_ms": median,
//     "ort_cpu_ms": median} (wall time and the process's CPU time, user + system, per run)
// INPUT.npy feeds the model's first input; more inputs are given after, by name (the first one
// too, instead of INPUT.npy): NAME=FILE.npy (its own element type: float32/64, int64/32/16/8,
// uint8, bool), NAME=int64:V (an int64 scalar) or NAME=V (a scalar number of the type the
// model declares for NAME), e.g. Silero VAD's state and sr.
// Single thread (intra/inter op 1), all graph optimisations, as the benchmark compares.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(path.resolve('.cache/ort/package.json'));
const ort = require('onnxruntime-node');

const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
};
function readNpy(file) {
  const b = fs.readFileSync(file);
  const hlen = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + hlen);
  const descr = (header.match(/'descr':\s*'([^']*)'/) || [])[1];
  if (!NPY_TYPES[descr]) throw new Error(`${file}: element type ${descr} is not supported (${Object.keys(NPY_TYPES).join(' ')})`);
  const [type, Arr] = NPY_TYPES[descr];
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const body = b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length);
  const data = type === 'bool' ? Array.from(new Uint8Array(body), x => x !== 0) : new Arr(body);
  return new ort.Tensor(type, data, shape);
}
// A scalar number of the input's declared element type.
function scalar(name, text) {
  const meta = (sess.inputMetadata || []).find(m => m.name === name);
  const type = meta && meta.isTensor ? meta.type : 'float32';
  if (type === 'int64' || type === 'uint64') return new ort.Tensor(type, [BigInt(text)], []);
  if (type === 'bool') return new ort.Tensor(type, [Number(text) !== 0], []);
  if (!Number.isFinite(Number(text))) throw new Error(`${name}=${text}: not a number`);
  return new ort.Tensor(type, [Number(text)], []);
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
const feeds = {};
if (input !== undefined) feeds[sess.inputNames[0]] = readNpy(input);
for (const a of argv.filter(a => a.includes('='))) {
  const [name, val] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
  if (!sess.inputNames.includes(name)) throw new Error(`${model} has no input '${name}' (it has ${sess.inputNames.join(', ')})`);
  feeds[name] = val.startsWith('int64:') ? new ort.Tensor('int64', BigInt64Array.from([BigInt(val.slice(6))]), [])
              : val.endsWith('.npy') ? readNpy(val) : scalar(name, val);
}
const missing = sess.inputNames.filter(n => !(n in feeds));
if (missing.length) throw new Error(`${model}: no value for input(s) ${missing.join(', ')}`);
if (reps > 0) {
  await sess.run(feeds);
  const ts = [], cs = [];
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
    await sess.run(feeds);
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cs.push((c.user + c.system) / 1e3);
  }
  ts.sort((a, b) => a - b);
  cs.sort((a, b) => a - b);
  console.log(JSON.stringify({ ort_ms: ts[Math.floor(ts.length / 2)], ort_cpu_ms: cs[Math.floor(cs.length / 2)] }));
} else {
  const out = await sess.run(feeds);
  fs.mkdirSync(outdir, { recursive: true });
  for (const name of sess.outputNames) writeNpy(path.join(outdir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), out[name]);
}

#!/usr/bin/env bash
# ort-setup.sh - installs onnxruntime-node@1.30.0 into .cache/ort (npm registry only; the
# package's own download of GPU binaries is skipped). Needed by ort-reference.mjs.
set -eu
cd "$(dirname "$0")/.."
[ -d .cache/ort/node_modules/onnxruntime-node ] && exit 0
mkdir -p .cache/ort
cd .cache/ort
[ -f package.json ] || echo '{"private": true}' > package.json
ONNXRUNTIME_NODE_INSTALL=skip npm install --silent --no-audit --no-fund onnxruntime-node@1.30.0

#!/usr/bin/env bash
# ort-setup.sh - installs onnxruntime-node@1.30.0 into .cache/ort (npm registry only; the
# package's own download of GPU binaries is skipped). Needed by ort-reference.mjs.
# Without the registry it fails within seconds with npm's own error text (npm-common.sh).
set -eu
cd "$(dirname "$0")/.."
[ -d .cache/ort/node_modules/onnxruntime-node ] && exit 0
. scripts/npm-common.sh
npm_check_registry "ort-setup.sh: cannot install onnxruntime-node@1.30.0" || exit 1
mkdir -p .cache/ort
cd .cache/ort
[ -f package.json ] || echo '{"private": true}' > package.json
if ! ONNXRUNTIME_NODE_INSTALL=skip npm install "${NPM_FLAGS[@]}" onnxruntime-node@1.30.0 >npm.out 2>npm.err; then
  echo "ort-setup.sh: npm install onnxruntime-node@1.30.0 failed: $(npm_errors npm.err)" >&2
  rm -rf node_modules/onnxruntime-node
  exit 1
fi
rm -f npm.out npm.err

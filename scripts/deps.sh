#!/usr/bin/env bash
# deps.sh - installs the Debian packages the build and tests need, if any is missing.
# Idempotent and silent when everything is present. Needs root (or sudo) only to install.
set -eu
pkgs=(gcc g++ make pkg-config bc libcmocka-dev libcjson-dev zlib1g-dev)
# Areas add their packages here as they arrive (verilator, llvm-dev, protobuf-c, ...).
[ -f "$(dirname "$0")/deps.list" ] && mapfile -t -O ${#pkgs[@]} pkgs < <(grep -v '^#' "$(dirname "$0")/deps.list" | grep .)
missing=()
for p in "${pkgs[@]}"; do
  # "package|command": satisfied when the command is already on PATH (e.g. a Node.js that
  # did not come from Debian, whose npm would conflict with Debian's).
  if [[ $p == *"|"* ]]; then
    command -v "${p#*|}" >/dev/null 2>&1 && continue
    p=${p%%|*}
  fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps.sh: installing ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

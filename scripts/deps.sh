#!/usr/bin/env bash
# deps.sh - installs the Debian packages the build and the tests need, when any is missing, and
# checks that the commands and headers the build uses are really there afterwards.
# Idempotent and silent when everything is present. Needs root (or sudo) only to install.
#
# scripts/deps.list has one package a line, with what the build uses of it:
#   package                      needed when dpkg does not list it as installed
#   package|check|check...       needed when any check fails; a check is a command name (looked
#                                up on PATH) or an absolute path (a header, a data folder)
# A command found on PATH satisfies its line even when it did not come from Debian (a Node.js
# installed otherwise, whose npm would conflict with Debian's). A package that is installed but
# whose command or header is missing is reinstalled; if a check still fails after that, deps.sh
# names the package and the missing file and exits 1, so the build never starts without it.
set -eu
list=$(dirname "$0")/deps.list
[ -f "$list" ] || { echo "deps.sh: $list is missing" >&2; exit 1; }

# check LINE -> prints the checks of LINE that fail (nothing when all pass)
failing_checks() {
  local c
  for c in "$@"; do
    if [[ $c == /* ]]; then [ -e "$c" ] || echo "$c"
    else command -v "$c" >/dev/null 2>&1 || echo "$c"; fi
  done
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

lines=()
while IFS= read -r l; do
  l=${l%%#*}; l=${l//[[:space:]]/}
  [ -n "$l" ] && lines+=("$l")
done < "$list"

missing=() broken=()
for l in "${lines[@]}"; do
  IFS='|' read -r -a f <<<"$l"
  p=${f[0]} checks=("${f[@]:1}")
  if [ ${#checks[@]} -eq 0 ]; then
    installed "$p" || missing+=("$p")
  elif [ -n "$(failing_checks "${checks[@]}")" ]; then
    if installed "$p"; then broken+=("$p"); else missing+=("$p"); fi
  fi
done
[ ${#missing[@]} -eq 0 ] && [ ${#broken[@]} -eq 0 ] && exit 0

sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "deps.sh: missing Debian packages: ${missing[*]} ${broken[*]}; run scripts/deps.sh as root to install them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp); trap 'rm -f "$log"' EXIT
apt() { # runs apt-get quietly; on failure shows its own words and stops
  if ! $sudo apt-get "$@" >"$log" 2>&1; then
    grep -E '^(E|W):' "$log" >&2 || tail -5 "$log" >&2
    echo "deps.sh: apt-get $* failed" >&2
    exit 1
  fi
}
[ ${#missing[@]} -eq 0 ] || echo "deps.sh: installing ${missing[*]}" >&2
[ ${#broken[@]} -eq 0 ] || echo "deps.sh: reinstalling ${broken[*]} (installed, but a command or file of theirs is missing)" >&2
apt update -qq
[ ${#missing[@]} -eq 0 ] || apt install -y -qq --no-install-recommends "${missing[@]}"
[ ${#broken[@]} -eq 0 ] || apt install -y -qq --no-install-recommends --reinstall "${broken[@]}"

# What the build uses must be there now: name the package and the file when it is not.
bad=0
for l in "${lines[@]}"; do
  IFS='|' read -r -a f <<<"$l"
  p=${f[0]} checks=("${f[@]:1}")
  if [ ${#checks[@]} -eq 0 ]; then
    installed "$p" || { echo "deps.sh: package $p did not install" >&2; bad=1; }
  else
    for c in $(failing_checks "${checks[@]}"); do
      echo "deps.sh: package $p is installed but $c is missing (the build needs it)" >&2; bad=1
    done
  fi
done
exit $bad

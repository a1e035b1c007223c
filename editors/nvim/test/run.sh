#!/usr/bin/env bash
# Headless end-to-end test of editors/nvim against a freshly built fixloop.
# Exits non-zero on failure. FIXLOOP_E2E_BREAK=1 breaks one assertion on purpose.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin="$(cd "$here/.." && pwd)"
repo="$(cd "$plugin/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/fixloop-nvim-test.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

command -v nvim >/dev/null || { echo "FAIL: nvim not found" >&2; exit 1; }
echo "building fixloop..."
(cd "$repo" && go build -o "$tmp/fixloop" .)
mkdir -p "$tmp/work" "$tmp/state"
cp -R "$repo/testdata/calc" "$tmp/work/calc"
cp -R "$repo/testdata/pyexample" "$tmp/work/pyexample"
mkdir -p "$tmp/trust" "$tmp/trust-state" "$tmp/trust-data"
cp -R "$repo/testdata/calc" "$tmp/trust/calc"

# The 0.11 path's logic (lsp/fixloop.lua), on this Neovim.
nvim --headless -u NONE -i NONE --cmd "set rtp+=$plugin" -c "luafile $here/config.lua" </dev/null

# Workspace trust: a private trust file (XDG_STATE_HOME, XDG_DATA_HOME on
# Neovim 0.7).
set +e
env -u FIXLOOP_MODEL -u OPENAI_BASE_URL \
  XDG_STATE_HOME="$tmp/trust-state" \
  XDG_DATA_HOME="$tmp/trust-data" \
  FIXLOOP_BIN="$tmp/fixloop" \
  FIXLOOP_TRUSTDIR="$tmp/trust/calc" \
  timeout 120 nvim --headless -u NONE -i NONE \
    --cmd "set rtp+=$plugin" \
    -c "luafile $here/trust.lua" </dev/null
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  echo "FAIL: the trust test exited with status $rc" >&2
  exit "$rc"
fi

set +e
env -u FIXLOOP_MODEL -u OPENAI_BASE_URL \
  FIXLOOP_NVIM_TEST_KEY=dummy-key-for-the-scripted-server \
  XDG_STATE_HOME="$tmp/state" \
  XDG_DATA_HOME="$tmp/data" \
  FIXLOOP_BIN="$tmp/fixloop" \
  FIXLOOP_WORKDIR="$tmp/work/calc" \
  FIXLOOP_PYDIR="$tmp/work/pyexample" \
  PATH="$tmp:$PATH" \
  timeout 180 nvim --headless -u NONE -i NONE \
    --cmd "set rtp+=$plugin" \
    -c "luafile $here/e2e.lua" </dev/null
rc=$?
set -e
if [ "$rc" -eq 124 ]; then
  echo "FAIL: timed out after 180 s" >&2
elif [ "$rc" -ne 0 ]; then
  echo "FAIL: nvim exited with status $rc" >&2
fi
exit "$rc"

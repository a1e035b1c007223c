#!/usr/bin/env bash
# Runs every test: the Go packages (with the race detector), the Neovim
# plugin's headless end-to-end test, and the VS Code extension's unit and
# end-to-end tests. Each editor test drives the real fixloop server.
set -euo pipefail
cd "$(dirname "$0")"

# The language tests skip a tool that is not installed; CI must have them
# all, so that nothing is skipped there.
if [ "${CI:-}" = true ]; then
  for t in bwrap setpriv pylint flake8 pyright pytest-3 g++ clang-tidy javac java checkstyle; do
    command -v "$t" >/dev/null 2>&1 || { echo "missing $t: CI must install it (see .ci/run)" >&2; exit 1; }
  done
  [ -f /usr/share/java/junit-platform-console-standalone.jar ] || { echo "missing junit5: CI must install it" >&2; exit 1; }
fi

echo "== go test -race ./..."
go test -race -count=1 -timeout 30m ./...

# The fuzz targets, for a bounded time each: the frame reader and
# dispatcher (random bytes between valid frames), and incremental edits
# against a model of the client's text.
echo "== fuzz (bounded)"
go test -run '^$' -fuzz '^FuzzFraming$' -fuzztime "${FUZZTIME:-20s}" ./server/
go test -run '^$' -fuzz '^FuzzIncrementalEdits$' -fuzztime "${FUZZTIME:-20s}" ./editor/docstore/

# An editor test whose tool is missing is skipped with a message on a
# developer's machine; in CI (CI=true) it is a failure.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "${CI:-}" = true ]; then
    echo "missing $1: CI must install it (see .ci/run)" >&2
    exit 1
  fi
  echo "skipped: $1 is not installed ($2)"
  return 1
}

echo "== Neovim plugin (editors/nvim/test/run.sh)"
if need nvim "apt-get install neovim"; then
  bash editors/nvim/test/run.sh
fi

echo "== VS Code extension (editors/vscode/test.sh)"
if need npm "install Node.js 20 and npm"; then
  bash editors/vscode/test.sh
fi

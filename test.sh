#!/usr/bin/env bash
# Runs every test: the Go packages (with the race detector), the bounded
# fuzz targets, the Neovim plugin's headless end-to-end test, and the VS
# Code extension's unit and end-to-end tests, and the packaged extension in a
# real VS Code (code-server). Each editor test drives the
# real fixloop server. Every suite runs even when an earlier one fails;
# the summary at the end lists what failed and what was skipped, and the
# exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")"

failed=()
skipped=()

# The language tests skip a tool that is not installed; CI must have them
# all, so that nothing is skipped there.
if [ "${CI:-}" = true ]; then
  for t in bwrap setpriv pylint flake8 pyright pytest-3 g++ clang-tidy javac java checkstyle; do
    command -v "$t" >/dev/null 2>&1 || { echo "missing $t: CI must install it (see .ci/run)" >&2; exit 1; }
  done
  [ -f /usr/share/java/junit-platform-console-standalone.jar ] || { echo "missing junit5: CI must install it" >&2; exit 1; }
fi

# suite NAME COMMAND...: runs one suite and records a failure.
suite() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "== $name"
  if ! "$@"; then
    failed+=("$name")
  fi
  echo "-- $name: $((SECONDS - start))s"
}

# go test through gotestsum (a tool of go.mod: go tool gotestsum), which
# prints what go test prints and keeps the events, to list the tests that
# took longest: the run must stay well under an hour on two cores.
events="$(mktemp)"
trap 'rm -f "$events"' EXIT
# The packages that take longest (the languages' differential tests) go
# first, so that none of them runs alone at the end on one core.
slow="./runner/python ./runner/cpp ./runner/java ./cli"
# shellcheck disable=SC2086 # word splitting is wanted
pkgs="$slow $(go list ./... | grep -v -x -F $(go list $slow | sed 's/^/-e /'))"
# TestEvalScoresHoldUnderLoad starts CPU hogs: it runs alone, after, so
# that they do not slow the other packages' tests.
load='^TestEvalScoresHoldUnderLoad$'
# shellcheck disable=SC2086 # word splitting is wanted
suite "go test -race ./..." go tool gotestsum --format standard-quiet --jsonfile "$events" -- -race -count=1 -timeout 45m -skip "$load" $pkgs
suite "go test -race ./cli/ -run '$load' (alone)" go test -race -count=1 -timeout 20m -run "$load" ./cli/
echo "-- the tests that took over a minute:"
go tool gotestsum tool slowest --jsonfile "$events" --threshold 60s || true

# The fuzz targets, for a bounded number of inputs each: the frame reader
# and dispatcher (random bytes between valid frames), and incremental edits
# against a model of the client's text, and the in-place decoding of large
# didOpen frames against encoding/json. The bound is a count ("Nx"), not a
# duration: go1.26's fuzz coordinator can fail a target with a bare
# "context deadline exceeded" when a -fuzztime duration ends while a worker
# is busy (go.dev/issue/75804, fixed in go1.27), and on a loaded machine it
# did (CI46). FUZZTIME overrides all three (a count or a duration).
suite "fuzz: framing (${FUZZTIME:-10000x})" go test -run '^$' -fuzz '^FuzzFraming$' -fuzztime "${FUZZTIME:-10000x}" ./server/
suite "fuzz: large didOpen decoding (${FUZZTIME:-20000x})" go test -run '^$' -fuzz '^FuzzDecodeOpen$' -fuzztime "${FUZZTIME:-20000x}" ./server/
suite "fuzz: incremental edits (${FUZZTIME:-60000x})" go test -run '^$' -fuzz '^FuzzIncrementalEdits$' -fuzztime "${FUZZTIME:-60000x}" ./editor/docstore/

# An editor test whose tool is missing is skipped with a message on a
# developer's machine; in CI (CI=true) it is a failure.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "${CI:-}" = true ]; then
    echo "missing $1: CI must install it (see .ci/run)" >&2
    failed+=("$3 (missing $1)")
    return 1
  fi
  skipped+=("$3: $1 is not installed ($2)")
  return 1
}

if need nvim "apt-get install neovim" "Neovim plugin"; then
  suite "Neovim plugin (editors/nvim/test/run.sh)" bash editors/nvim/test/run.sh
fi
if need npm "install Node.js 20 and npm" "VS Code extension"; then
  suite "VS Code extension (editors/vscode/test.sh)" bash editors/vscode/test.sh
  # The packaged .vsix in a real VS Code (code-server) from headless
  # Chromium. The first run installs Node 24 and code-server into
  # ${FIXLOOP_CACHE:-~/.cache/fixloop} (about 3 minutes); later runs reuse them.
  if need chromium "apt-get install chromium" "VS Code in code-server"; then
    suite "VS Code in code-server (editors/vscode/test/codeserver.sh)" bash editors/vscode/test/codeserver.sh
  fi
fi

# What the Go tests skip on a developer's machine (CI runs them all).
[ -n "${FIXLOOP_TEST_POSTGRES:-}" ] || skipped+=("PostgreSQL store tests: FIXLOOP_TEST_POSTGRES is unset (sh store/testdata/postgres.sh prints a DSN)")
command -v chromium >/dev/null 2>&1 || skipped+=("HTML report rendering: chromium is not installed")
command -v bwrap >/dev/null 2>&1 || skipped+=("sandbox and attack tests: bubblewrap is not installed (apt-get install bubblewrap)")
[ "$(id -u)" = 0 ] || skipped+=("the attack suite runs fixloop as root and as nobody: run as root")

echo
echo "== summary"
for s in "${skipped[@]}"; do echo "skipped: $s"; done
if [ ${#failed[@]} -gt 0 ]; then
  for f in "${failed[@]}"; do echo "FAILED: $f"; done
  exit 1
fi
echo "all suites passed"

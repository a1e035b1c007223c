#!/usr/bin/env bash
# fixloop against gopls on real modules (issues 13 and 25), fetched with the
# Go module proxy: issue 13's four and their direct requirements that have
# tests, and the files each scenario edits, picked by the rule stated in
# bench/lspbench/modules.go (applied by rule.go); plus testdata/benchpkg.
# It installs gopls (staticcheck on, diagnosticsDelay 0s) and runs both
# servers alternately through one LSP client (bench/lspbench), printing a
# markdown table of fixloop/gopls ratios: edit -> diagnostics, an exported
# rename seen by an open dependent (seeds only), a _test.go edit, a
# build-tagged file, a burst of edits, cold and warm opens, and peak RSS.
#
#   bench/gopls.sh                       # N=5 edits per scenario and server
#   N=10 NOPEN=2 bench/gopls.sh          # more samples
#   MODULES=chi/v5,cobra bench/gopls.sh  # some modules only (short names)
#   PROFILE=/tmp/prof KEEP=1 bench/gopls.sh  # CPU profiles of every server run
#   KEEP=1 bench/gopls.sh                # keep the copies, caches and server logs
#   BASE_REV=HEAD~1 bench/gopls.sh       # and fixloop at HEAD~1 as a baseline
#
# With BASE_REV (a git revision), that revision's fixloop is built too
# (git archive into a temporary directory; its version reads as the short
# commit) and runs as a third server, "base", with fixloop's settings and
# caches of its own, alternated with the other two in every sample; the
# report adds base/gopls beside fixloop/gopls and a fixloop/base table, so
# a change is measured against the commit before it in the same run.
#
# Settings: N, NOPEN (cold + warm opens per server), TIMEOUT (per edit,
# default 30s), OPEN_TIMEOUT (default 240s), MODULES, KEEP, PROFILE, GOPLS_VERSION
# (default v0.23.0), BASE_REV (or BASE, a baseline fixloop binary),
# FIXLOOP_BENCH_CACHE (where gopls is installed; default
# ${XDG_CACHE_HOME:-~/.cache}/fixloop-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
export GOTOOLCHAIN=local GOWORK=off

GOPLS_VERSION="${GOPLS_VERSION:-v0.23.0}"
cache="${FIXLOOP_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fixloop-bench}"
gobin="$cache/gopls-$GOPLS_VERSION/bin"
if ! "$gobin/gopls" version 2>/dev/null | grep -q "gopls $GOPLS_VERSION"; then
  echo "installing gopls $GOPLS_VERSION into $gobin" >&2
  mkdir -p "$gobin"
  GOBIN="$gobin" go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/fixloop" .
base=()
if [ -n "${BASE_REV:-}" ]; then
  rev=$(git rev-parse --short "$BASE_REV^{commit}")
  echo "building fixloop at $BASE_REV ($rev) as the baseline" >&2
  mkdir "$bin/base-src"
  git archive "$rev" | tar -x -C "$bin/base-src"
  (cd "$bin/base-src" && go build -o "$bin/fixloop-base" \
    -ldflags "-X github.com/fixloop/fixloop/cli.Version=$rev" .)
  rm -rf "$bin/base-src"
  base=(-base "$bin/fixloop-base")
fi
go run ./bench/lspbench -fixloop "$bin/fixloop" -gopls "$gobin/gopls" ${base[@]+"${base[@]}"} "$@"

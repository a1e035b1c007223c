#!/usr/bin/env bash
# CI entry point for the VS Code extension: clean install, bundle, unit + e2e tests.
# The e2e test builds the server with `go build` (or uses $FIXLOOP_BIN).
set -euo pipefail
cd "$(dirname "$0")"
npm ci
npm run build
npm test

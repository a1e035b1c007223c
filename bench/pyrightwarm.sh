#!/usr/bin/env bash
# Warm pyright (pyright-langserver, python.tools: warm) against the cold
# pyright --outputjson: Linter.Lint with pyright on
# testdata/pyexample/stats.py, one check of each design per round,
# alternated in one process (BenchmarkPyrightLint), N rounds. Prints the
# mean time of each, the ratio warm/cold (the issue's goal: at most 0.3)
# and the language server's peak resident memory (goal: at most 300 MB).
#
#   bench/pyrightwarm.sh          # N=30
#   N=60 bench/pyrightwarm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-30}"
out=$(go test -run '^$' -bench '^BenchmarkPyrightLint$' -benchtime "${N}x" -count 1 ./runner/python/)
line=$(printf '%s\n' "$out" | grep '^BenchmarkPyrightLint') || { printf '%s\n' "$out" >&2; exit 1; }
printf '%s\n' "$line" | awk -v n="$N" '{
  for (i = 1; i <= NF; i++) {
    if ($i == "cold-s/op") cold = $(i-1)
    if ($i == "warm-s/op") warm = $(i-1)
    if ($i == "warm/cold") ratio = $(i-1)
    if ($i == "worker-peak-MB") rss = $(i-1)
  }
  printf "| Python pyright, stats.py, %d rounds alternated | cold %.0f ms | warm %.0f ms | warm/cold %.2f | server peak RSS %.0f MB |\n", n, cold*1000, warm*1000, ratio, rss
}'

#!/usr/bin/env bash
# The warm Java worker against the cold tools: Linter.Lint with javac,
# checkstyle and PMD (the paper's rule families, when PMD is installed:
# pmd on PATH or $FIXLOOP_PMD) on testdata/javaexample's Stats.java, one
# check of each design per round, alternated in one process
# (BenchmarkJavaLint), N rounds, each round a new text so that no cached
# result is used. Prints the mean time of each, the ratio warm/cold (the
# issue's goal: at most 0.3) and the worker's peak resident memory (goal:
# at most 300 MB) as one markdown row.
#
#   bench/javawarm.sh          # N=20
#   N=40 bench/javawarm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-20}"
out=$(go test -run '^$' -bench '^BenchmarkJavaLint$' -benchtime "${N}x" -count 1 -timeout 30m ./runner/java/)
line=$(printf '%s\n' "$out" | grep '^BenchmarkJavaLint') || { printf '%s\n' "$out" >&2; exit 1; }
tools="javac+checkstyle+PMD"
if printf '%s\n' "$out" | grep -q 'PMD is not installed'; then
  tools="javac+checkstyle"
fi
printf '%s\n' "$line" | awk -v n="$N" -v tools="$tools" '{
  for (i = 1; i <= NF; i++) {
    if ($i == "cold-s/op") cold = $(i-1)
    if ($i == "warm-s/op") warm = $(i-1)
    if ($i == "warm/cold") ratio = $(i-1)
    if ($i == "worker-peak-MB") rss = $(i-1)
  }
  printf "| Java %s, Stats.java, %d rounds alternated | cold %.0f ms | warm %.0f ms | warm/cold %.2f | worker peak RSS %.0f MB |\n", tools, n, cold*1000, warm*1000, ratio, rss
}'

#!/usr/bin/env bash
# The warm C++ design (clangd for clang-tidy's checks, g++ with a kept
# precompiled header) against the cold tools: Linter.Lint on the files of
# testdata/cppexample, one check of each design per file per round,
# alternated in one process (BenchmarkCppLint), N rounds, under each
# clang-tidy installed with its clangd. Prints one markdown row per
# clang-tidy: the mean time of a round of each, the ratio warm/cold (the
# issue's goal: at most 0.3), clangd's peak resident memory (goal: at most
# 300 MB), and how many clang-tidy checks clangd gave and how many went to
# the cold clang-tidy.
#
#   bench/cppwarmlint.sh          # N=10
#   N=30 bench/cppwarmlint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-10}"
for tidy in clang-tidy clang-tidy-22; do
  command -v "$tidy" >/dev/null 2>&1 || continue
  command -v "${tidy/clang-tidy/clangd}" >/dev/null 2>&1 || continue
  out=$(CPP_BENCH_TIDY="$tidy" go test -run '^$' -bench '^BenchmarkCppLint$' -benchtime "${N}x" -count 1 ./runner/cpp/)
  line=$(printf '%s\n' "$out" | grep '^BenchmarkCppLint') || { printf '%s\n' "$out" >&2; exit 1; }
  printf '%s\n' "$line" | awk -v n="$N" -v tidy="$tidy" '{
    for (i = 1; i <= NF; i++) {
      if ($i == "cold-s/op") cold = $(i-1)
      if ($i == "warm-s/op") warm = $(i-1)
      if ($i == "warm/cold") ratio = $(i-1)
      if ($i == "worker-peak-MB") rss = $(i-1)
      if ($i == "clangd-checks") cd = $(i-1)
      if ($i == "cold-tidy-checks") ct = $(i-1)
    }
    printf "| C++ g++ + %s, testdata/cppexample (3 files), %d rounds alternated | cold %.0f ms | warm %.0f ms | warm/cold %.2f | clangd peak RSS %.0f MB | clangd checks %d, cold clang-tidy %d |\n", tidy, n, cold*1000, warm*1000, ratio, rss, cd, ct
  }'
done

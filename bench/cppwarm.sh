#!/usr/bin/env bash
# Issue 29's measurement before a warm C++ design is built: clangd (which
# keeps each file's preamble and runs clang-tidy's checks itself) against
# the cold design (fixloop's C++ linter, g++ and clang-tidy started for
# every check), alternated per edit on the repository's C++ examples
# (bench/cppwarm). Prints, per file, the median times, their ratio, and
# how many of clang-tidy's alerts clangd reports alike (check, line,
# message; and column), and saves it to bench/results/cppwarm-DATE.md.
# Needs clangd (Debian package clangd) besides clang-tidy and g++.
#
#   bench/cppwarm.sh                 # N=5 edits per file
#   N=10 bench/cppwarm.sh FILE.cc    # other files
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-5}"
command -v clangd >/dev/null || { echo "cppwarm: clangd is not installed (apt install clangd)" >&2; exit 2; }
mkdir -p bench/results
out="bench/results/cppwarm-$(date -u +%F).md"
{
  echo "# clangd against the cold C++ linter (g++ and clang-tidy per check)"
  echo
  echo "\`bench/cppwarm.sh\` (N=$N), $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), $(clangd --version | head -1), $(nproc) CPUs."
  echo
  go run ./bench/cppwarm -n "$N" "$@"
} | tee "$out"
echo "saved $out"

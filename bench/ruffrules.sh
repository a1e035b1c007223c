#!/usr/bin/env bash
# Issue 29's comparison of the rules provider's Python row with LintEval's
# rule-based baseline: on the bundled dataset's Python problems, the rules
# provider's sessions (Ruff's safe fixes, then autopep8, in checked rounds)
# against `ruff check --fix` run directly once, scored alike by
# refactor/aggregate (BenchmarkRulesAgainstRuff). Prints both rows and the
# difference of their Reduction@P in points (goal: within 5), and saves it
# to bench/results/ruffrules-DATE.md.
#
#   bench/ruffrules.sh                      # the bundled dataset
#   DATASET=/path/to/sample bench/ruffrules.sh  # another, in eval's layout
#                                            # (a sample of a hidden set)
set -euo pipefail
export FIXLOOP_BENCH_DATASET="${DATASET:-}"
cd "$(dirname "$0")/.."
mkdir -p bench/results
out="bench/results/ruffrules-$(date -u +%F).md"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -run '^$' -count=1 -timeout 30m -benchtime 1x -bench '^BenchmarkRulesAgainstRuff$' ./cli/ 2>&1 | grep -v 'analyzer panicked' | tee "$log"
{
  echo "# The rules provider against \`ruff check --fix\` run directly (Python)"
  echo
  echo "\`bench/ruffrules.sh\`${DATASET:+ on $DATASET}, $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), Ruff (WebAssembly) $(sed -n 's/^const RuffWasmVersion = "\(.*\)"/\1/p' refactor/model/rules/ruff.go)."
  echo
  sed -n '/^| [0-9]* Python problems/,/^Reduction@P/p' "$log"
} >"$out"
echo "saved $out"

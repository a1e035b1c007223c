#!/usr/bin/env bash
# Issue 27's benchmark: the bundled eval dataset (testdata/eval) answered by
# a scripted VERBOSE model (testdata/eval-answers-verbose: each fix plus
# renamed locals, reordered functions, comments and one new alert), each
# problem's session run through fixloop eval's session code with hunk
# minimisation on and off, alternately, in one run. It prints what is
# offered against the model's whole candidates (ΔLine@P, New@P, Pass@1,
# the salvaged share, by refactor/aggregate) and the wall-time ratio
# on/off, and saves the table to bench/results/minimize-DATE.md.
#
#   bench/minimize.sh                 # one pass over the dataset
#   N=3 bench/minimize.sh             # three passes, medians over all
#   FIXLOOP_MINIMIZE_PROBLEMS=go-calc,py-sum-wrong bench/minimize.sh
#   FIXLOOP_MINIMIZE_MAX_CHECKS=1 bench/minimize.sh   # another bound than
#                                     # refactor.DefaultMinimizeChecks
#   NAME=aligned bench/minimize.sh    # save as minimize-DATE-aligned.md
#   FIXLOOP_MINIMIZE_RECORDS=DIR bench/minimize.sh     # also write each
#                                     # session's record to DIR/RUN-PROBLEM.json
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-1}"
mkdir -p bench/results
out="bench/results/minimize-$(date -u +%F)${FIXLOOP_MINIMIZE_MAX_CHECKS:+-checks$FIXLOOP_MINIMIZE_MAX_CHECKS}${NAME:+-$NAME}.md"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -run '^$' -count=1 -timeout 60m -benchtime "${N}x" -bench '^BenchmarkMinimize$' ./cli/ 2>&1 | grep -v 'analyzer panicked' | tee "$log"
{
  echo "# Minimisation on vs off: bundled dataset, scripted verbose model"
  echo
  echo "\`bench/minimize.sh\` (N=$N, max checks ${FIXLOOP_MINIMIZE_MAX_CHECKS:-default}), $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), $(go env GOOS)/$(go env GOARCH), $(nproc) CPUs."
  echo
  sed -n '/^### Scores/,/^goos:/p' "$log" | sed '$d'
  grep '^BenchmarkMinimize' "$log"
} >"$out"
echo "saved $out"

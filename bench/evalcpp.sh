#!/usr/bin/env bash
# fixloop eval on C++ problems as a LintEval-size dataset has them (each in
# a directory of its own, each starting with #include <bits/stdc++.h>),
# with this tree against an earlier commit, alternating the two builds.
# The dataset is generated: PROBLEMS (default 12) copies of a small sum
# program with two clang-tidy alerts, each with testdata/eval/cpp-sum's
# tests; --provider rules --rounds 1 and eval's defaults (warm tools, one
# session per CPU). Prints each run's wall time, the medians and the ratio
# this/base, and saves them to bench/results/evalcpp-DATE.md.
#
#   bench/evalcpp.sh BASE           # e.g. bench/evalcpp.sh fa0b010~1
#   PAIRS=5 PROBLEMS=20 bench/evalcpp.sh BASE
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:?usage: bench/evalcpp.sh BASE}"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && go build -o "$work/fixloop-base" .)
go build -o "$work/fixloop-this" .

for i in $(seq -w 1 "${PROBLEMS:-12}"); do
  mkdir -p "$work/data/p$i/tests"
  cp testdata/eval/cpp-sum/tests/* "$work/data/p$i/tests/"
  cat > "$work/data/p$i/sum.cc" <<EOF
// Problem $i: the sum of the numbers read.
#include <bits/stdc++.h>

using namespace std;

long long add$i(long long a, long long b) { return a + b; }

int main() {
  long long total = 0;
  long long x;
  int *unused = NULL;
  while (cin >> x) {
    total = add$i(total, x);
  }
  if (unused == NULL) { cout << total << '\n'; }
  return 0;
}
EOF
done

. bench/evallib.sh
run() { eval_wall "$1" "$work" "$2" "$work/data"; }
this=() old=()
for i in $(seq "${PAIRS:-3}"); do
  if (( i % 2 )); then
    this+=("$(run "$work/fixloop-this" "this-$i")"); old+=("$(run "$work/fixloop-base" "base-$i")")
  else
    old+=("$(run "$work/fixloop-base" "base-$i")"); this+=("$(run "$work/fixloop-this" "this-$i")")
  fi
done
mt=$(median "${this[@]}") mb=$(median "${old[@]}")
mkdir -p bench/results
out="bench/results/evalcpp-$(date -u +%F).md"
{
  echo "# fixloop eval on ${PROBLEMS:-12} generated C++ problems: $(git rev-parse --short HEAD) against $(git -C "$work/base" rev-parse --short HEAD)"
  echo
  echo "\`bench/evalcpp.sh $base\` (PAIRS=${PAIRS:-3}, --provider rules --rounds 1, eval's defaults), $(date -u '+%F %H:%M UTC'), $(nproc) CPUs."
  echo
  echo "| pair | this s | base s |"
  echo "|---|---|---|"
  for i in $(seq "${PAIRS:-3}"); do echo "| $i | ${this[$((i-1))]} | ${old[$((i-1))]} |"; done
  echo
  awk -v t="$mt" -v b="$mb" 'BEGIN { printf "median: this %.1f s, base %.1f s; this/base %.2f\n", t, b, t / b }'
} | tee -a "$out"
echo "saved $out"

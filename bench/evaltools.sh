#!/usr/bin/env bash
# fixloop eval on the bundled dataset, as it runs now against how it ran
# when issue 29 was filed, alternated N times, each run in a fresh store.
# Every session is a baseline check and one round (--provider rules,
# --rounds 1), so the time is the checks'. Three runs each round, their
# order rotating:
#   now:        fixloop eval (its defaults: the warm tools, and with the
#               rules provider one session per CPU at a time);
#   today's:    --jobs 1 --tools cold (the defaults when the issue was
#               filed: one session at a time, every tool started cold);
#   warm alone: --jobs 1 --tools warm (what the warm tools give alone).
# Prints each run's wall time, the medians and the ratios now/today's and
# warm alone/today's, and saves the table to bench/results/evaltools-DATE.md.
#
#   bench/evaltools.sh          # N=3
#   N=5 bench/evaltools.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-3}"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/fixloop" .
. bench/evallib.sh
run() { eval_wall "$bin/fixloop" "$bin" "$1-$2" testdata/eval "${@:3}"; }
now=() old=() warm=()
for i in $(seq "$N"); do
  case $(( i % 3 )) in
    1) now+=("$(run now "$i")"); old+=("$(run old "$i" --jobs 1 --tools cold)"); warm+=("$(run warm "$i" --jobs 1 --tools warm)") ;;
    2) old+=("$(run old "$i" --jobs 1 --tools cold)"); warm+=("$(run warm "$i" --jobs 1 --tools warm)"); now+=("$(run now "$i")") ;;
    0) warm+=("$(run warm "$i" --jobs 1 --tools warm)"); now+=("$(run now "$i")"); old+=("$(run old "$i" --jobs 1 --tools cold)") ;;
  esac
done
mn=$(median "${now[@]}") mo=$(median "${old[@]}") mw=$(median "${warm[@]}")
jobs=$(grep -o '[0-9]* at a time' "$bin/now-1.log" | head -1)
mkdir -p bench/results
out="bench/results/evaltools-$(date -u +%F).md"
{
  echo "# fixloop eval on testdata/eval: now against the issue's day"
  echo
  echo "\`bench/evaltools.sh\` (N=$N, --provider rules --rounds 1), $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) CPUs; now ran $jobs."
  echo
  echo "| run | now (defaults) s | today's (--jobs 1 --tools cold) s | warm alone (--jobs 1 --tools warm) s |"
  echo "|---|---|---|---|"
  for i in $(seq "$N"); do echo "| $i | ${now[$((i-1))]} | ${old[$((i-1))]} | ${warm[$((i-1))]} |"; done
  echo
  awk -v n="$mn" -v o="$mo" -v w="$mw" 'BEGIN { printf "median: now %.1f s, today'"'"'s %.1f s, warm alone %.1f s; now/today'"'"'s %.2f (goal 0.6), warm alone/today'"'"'s %.2f\n", n, o, w, n / o, w / o }'
} | tee "$out"
echo "saved $out"

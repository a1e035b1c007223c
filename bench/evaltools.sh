#!/usr/bin/env bash
# fixloop eval on the bundled dataset with the warm Python linters against
# the cold ones (--tools warm / --tools cold), alternated N times, each run
# in a fresh store: issue 29's eval throughput, as far as the warm tools
# built so far reach (Python's pylint and flake8; C++, Java and Go run as
# before in both). Every session is a baseline check and one round
# (--provider rules, --rounds 1), so the time is the checks'. Prints each
# run's wall time, the medians and their ratio, and saves the table to
# bench/results/evaltools-DATE.md.
#
#   bench/evaltools.sh          # N=3
#   N=5 bench/evaltools.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-3}"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/fixloop" .
export XDG_STATE_HOME="$bin/state" FIXLOOP_MODEL=
run() { # run TOOLS I: prints the wall time in seconds
  local start end
  start=${EPOCHREALTIME/./}
  "$bin/fixloop" eval --provider rules --rounds 1 --tools "$1" --run "$1-$2" --store "$bin/$1-$2.db" testdata/eval >/dev/null 2>"$bin/$1-$2.log" ||
    { cat "$bin/$1-$2.log" >&2; exit 1; }
  end=${EPOCHREALTIME/./}
  printf '%d.%02d\n' $(( (end - start) / 1000000 )) $(( (end - start) % 1000000 / 10000 ))
}
warm=() cold=()
for i in $(seq "$N"); do
  if (( i % 2 )); then
    warm+=("$(run warm "$i")"); cold+=("$(run cold "$i")")
  else
    cold+=("$(run cold "$i")"); warm+=("$(run warm "$i")")
  fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mw=$(median "${warm[@]}") mc=$(median "${cold[@]}")
mkdir -p bench/results
out="bench/results/evaltools-$(date -u +%F).md"
{
  echo "# fixloop eval on testdata/eval: warm Python linters against cold"
  echo
  echo "\`bench/evaltools.sh\` (N=$N, --provider rules --rounds 1), $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) CPUs."
  echo
  echo "| run | --tools warm s | --tools cold s |"
  echo "|---|---|---|"
  for i in $(seq "$N"); do echo "| $i | ${warm[$((i-1))]} | ${cold[$((i-1))]} |"; done
  echo
  awk -v w="$mw" -v c="$mc" 'BEGIN { printf "median: warm %.1f s, cold %.1f s, warm/cold %.2f\n", w, c, w / c }'
} | tee "$out"
echo "saved $out"

#!/usr/bin/env bash
# For each language, the wall time of `fixloop check --tests=false` on its
# example against running its slowest linter alone on the same file, in the
# same run (median of N runs each, interleaved). fixloop runs a language's
# linters (and the C++ and Java compilers) concurrently, so the slowest
# single tool is the floor; the goal is a ratio under 1.1.
#
#   bench/langs.sh          # N=11
#   N=21 bench/langs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-11}"
bin=$(mktemp -d)/fixloop
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" .

now_ms() { date +%s%N | awk '{printf "%.1f", $1/1e6}'; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR+1)/2; if (NR%2) print a[m]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# time_cmd CMD...: prints the wall milliseconds of one run.
time_cmd() {
  local t0 t1
  t0=$(now_ms)
  "$@" >/dev/null 2>&1 || true
  t1=$(now_ms)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f\n", b-a}'
}

# bench NAME FILE -- BASELINE...
bench() {
  local name=$1 file=$2; shift 3
  local fx=() base=()
  # The timed runs ignore exit codes (linters exit non-zero on findings), so
  # check first that both commands really run: a missing tool would be
  # timed at a few milliseconds.
  command -v "$1" >/dev/null || { echo "bench: $1 is not installed" >&2; exit 1; }
  local rc=0
  "$bin" check --tests=false "$file" >/dev/null 2>&1 || rc=$?   # also warms caches
  [ "$rc" -le 1 ] || { echo "bench: fixloop check $file failed (exit $rc)" >&2; exit 1; }
  time_cmd "$@" >/dev/null
  for _ in $(seq "$N"); do
    fx+=("$(time_cmd "$bin" check --tests=false "$file")")
    base+=("$(time_cmd "$@")")
  done
  local f b
  f=$(printf '%s\n' "${fx[@]}" | median)
  b=$(printf '%s\n' "${base[@]}" | median)
  printf '| %s | %s ms | %s: %s ms | %.2f |\n' "$name" "$f" "$*" "$b" "$(awk -v a="$f" -v b="$b" 'BEGIN{print a/b}')"
}

py=testdata/pyexample/stats.py
cc=testdata/cppexample/stats.cc
jv=testdata/javaexample/src/main/java/example/Stats.java
echo "| language | fixloop check --tests=false, median | slowest linter alone, median | ratio |"
echo "| --- | --- | --- | --- |"
bench Python "$py" -- pylint --output-format=json --score=n "$py"
bench C++ "$cc" -- clang-tidy "-checks=-*,bugprone-*,performance-*,modernize-*,readability-*" "$cc" -- -std=c++17
bench Java "$jv" -- checkstyle -c /usr/share/checkstyle/sun_checks.xml -f xml "$jv"

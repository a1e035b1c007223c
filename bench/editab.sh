#!/usr/bin/env bash
# One Go file's edit -> diagnostics time in-process (BenchmarkAnalyzeEditFile,
# runner/golang) with this tree against an earlier commit, alternating the
# two builds, and the ratio of their medians of p50s.
#
#   bench/editab.sh BASE FILE...        # e.g. bench/editab.sh HEAD~3 $PWD/testdata/benchpkg/orders.go
#
# Settings: PAIRS (alternated runs per file, default 3), EDITS (edits per run,
# default 40). FILE must be absolute (any Go file of a module).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH" GOTOOLCHAIN=local GOWORK=off
base="${1:?usage: bench/editab.sh BASE FILE...}"
shift
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && go test -c -o "$work/base.test" ./runner/golang)
go test -c -o "$work/this.test" ./runner/golang
p50() {
  (cd runner/golang && FIXLOOP_BENCH_FILE="$2" "$1" -test.run '^$' -test.bench AnalyzeEditFile \
    -test.benchtime "${EDITS:-40}x" | grep -o '[0-9.]* p50-ms' | cut -d' ' -f1)
}
for file in "$@"; do
  b=() t=()
  for _ in $(seq "${PAIRS:-3}"); do
    b+=("$(p50 "$work/base.test" "$file")")
    t+=("$(p50 "$work/this.test" "$file")")
  done
  python3 - "$file" "${b[*]}" "${t[*]}" <<'PY'
import statistics, sys
f, b, t = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
print(f"{f}: base p50s {b} ms, this tree {t} ms, ratio of medians {statistics.median(t) / statistics.median(b):.2f}")
PY
done

#!/usr/bin/env bash
# Runs fixloop's benchmarks and the command-line baselines in one go, and
# prints the figures docs/performance.md reports, as ratios
# against the baselines measured in the same run.
#
#   bench/run.sh            # default: 20 iterations per benchmark
#   N=50 bench/run.sh
#
# fixloop against gopls on real modules from the Go module proxy: bench/gopls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-20}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -count=1 -benchtime "${N}x" \
  -bench 'DidOpenDiagnostics|DidChangeDiagnostics|EditBurst|BaselineGoVetCLI|BaselineStaticcheckCLI' ./server/ | tee -a "$out"
go test -run '^$' -count=1 -benchtime 3x -bench 'ServerPeakRSS' ./server/ | tee -a "$out"
go test -run '^$' -count=1 -benchtime 8x -bench 'CandidateCheck' ./refactor/ | tee -a "$out"

metric() { # metric BENCHMARK UNIT
  awk -v b="$1" -v u="$2" '$1 ~ "^Benchmark"b"(-[0-9]+)?$" { for (i = 3; i < NF; i++) if ($(i+1) == u) print $i }' "$out" | tail -1
}
edit=$(metric DidChangeDiagnostics p50-ms)
open=$(metric DidOpenDiagnostics p50-ms)
vet=$(metric BaselineGoVetCLI p50-ms)
sc=$(metric BaselineStaticcheckCLI p50-ms)
passes=$(metric EditBurst passes/burst)
burst=$(metric EditBurst p50-ms)
rss_cold=$(metric ServerPeakRSS/cold-cache peak-RSS-MB)
rss_warm=$(metric ServerPeakRSS/warm-cache peak-RSS-MB)
ratio=$(metric CandidateCheck check/slowest)
plain=$(metric CandidateCheck test-ms)
boxed=$(metric CandidateCheck sandboxed-test-ms)
boxratio=$(metric CandidateCheck sandboxed/plain)
unboxed=$(metric CandidateCheck unconfined-test-ms)
confratio=$(metric CandidateCheck sandboxed/unconfined)
echo
echo "| measure | fixloop | baseline (same run) | ratio |"
echo "| --- | --- | --- | --- |"
printf '| edit -> vet + staticcheck diagnostics, p50 | %s ms | staticcheck CLI %s ms; go vet CLI %s ms | %.1fx faster than staticcheck, %.1fx faster than go vet |\n' "$edit" "$sc" "$vet" "$(awk -v a="$sc" -v b="$edit" 'BEGIN{print a/b}')" "$(awk -v a="$vet" -v b="$edit" 'BEGIN{print a/b}')"
printf '| didOpen -> diagnostics (warm, unchanged text), p50 | %s ms | | |\n' "$open"
printf '| burst of 50 edits 10 ms apart (150 ms debounce) | %s analysis passes; last version published %s ms after the last edit | | |\n' "$passes" "$burst"
printf '| server peak RSS (open + 20 edits), warm dependency cache | %s MB | | |\n' "$rss_warm"
printf '| server peak RSS (open + 20 edits), empty dependency cache | %s MB | | |\n' "$rss_cold"
printf '| candidate check (analysis + go test at once) vs the slowest single tool | | | %s |\n' "$ratio"
printf '| candidate go test in the sandbox (bubblewrap, cgroups) vs the same runner with sandbox none | %s ms | %s ms | %s |\n' "$boxed" "$unboxed" "$confratio"
printf '| candidate go test in the sandbox vs plain go test in place | %s ms | %s ms | %s |\n' "$boxed" "$plain" "$boxratio"

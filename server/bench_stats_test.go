package server_test

import (
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang"
)

// benchStats reports the Go analyzer's counters after a benchmark: full
// loads that replaced an incremental pass (fallbacks, by reason in the
// log), and the files whose file-local diagnostics were reused.
func benchStats(b *testing.B, l runner.Linter) {
	a, ok := l.(*golang.Analyzer)
	if !ok {
		return
	}
	st := a.Stats()
	b.ReportMetric(float64(st.Fallbacks), "fallbacks")
	b.ReportMetric(float64(st.FullLoads), "full-loads")
	if st.Fallbacks > 0 {
		b.Logf("fallbacks: %v", a.FallbackReasons())
	}
}

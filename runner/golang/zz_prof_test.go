package golang

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProfileEdits(t *testing.T) {
	out := os.Getenv("ZZPROF")
	if out == "" {
		t.Skip()
	}
	file, orig, edited := benchEdit(t)
	a := newAnalyzer(t, AnalyzerOptions{})
	ctx := context.Background()
	analyze(t, a, file, nil)
	f, _ := os.Create(out)
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	texts := [][]byte{edited, orig}
	for i := range 100 {
		if _, err := a.Analyze(ctx, file, map[string][]byte{file: texts[i%2]}); err != nil {
			t.Fatal(err)
		}
	}
	pprof.StopCPUProfile()
	f.Close()
	t.Logf("100 edits: %v, stats %+v", time.Since(t0), a.Stats())
}

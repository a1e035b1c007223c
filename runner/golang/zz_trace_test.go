package golang

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"
)

func TestZZTrace(t *testing.T) {
	if os.Getenv("ZZTRACE") == "" {
		t.Skip()
	}
	file, orig, edited := benchEdit(t)
	a := newAnalyzer(t, AnalyzerOptions{})
	ctx := context.Background()
	analyze(t, a, file, nil)
	for i := 0; i < 5; i++ {
		a.Analyze(ctx, file, map[string][]byte{file: edited})
		a.Analyze(ctx, file, map[string][]byte{file: orig})
	}
	var mu sync.Mutex
	type ev struct {
		name       string
		start, end time.Duration
	}
	var evs []ev
	var t0 time.Time
	traceActions = func(name string, s, e time.Time) {
		mu.Lock()
		evs = append(evs, ev{name, s.Sub(t0), e.Sub(t0)})
		mu.Unlock()
	}
	t0 = time.Now()
	a.Analyze(ctx, file, map[string][]byte{file: edited})
	total := time.Since(t0)
	traceActions = nil
	sort.Slice(evs, func(i, j int) bool { return evs[i].start < evs[j].start })
	for _, e := range evs {
		if e.end-e.start > 500*time.Microsecond {
			fmt.Printf("%-20s %6.1f %6.1f %6.1f\n", e.name, e.start.Seconds()*1000, e.end.Seconds()*1000, (e.end-e.start).Seconds()*1000)
		}
	}
	fmt.Println("first action at", evs[0].start, "last end", evs[len(evs)-1].end, "total", total)
}

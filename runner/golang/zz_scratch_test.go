package golang

import (
	"context"
	"testing"
)

func TestZZCold(t *testing.T) {
	file, _, _ := benchEdit(t)
	a := newAnalyzer(t, AnalyzerOptions{})
	if _, err := a.Analyze(context.Background(), file, nil); err != nil {
		t.Fatal(err)
	}
}

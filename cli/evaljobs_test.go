package cli

import (
	"runtime"
	"testing"
)

func TestEvalJobs(t *testing.T) {
	cpus := runtime.NumCPU()
	tests := []struct {
		jobs     int
		provider string
		want     int
	}{
		{3, "openai", 3},
		{3, "rules", 3},
		{0, "rules", cpus},
		{0, "replay", cpus},
		{0, "copy-original", cpus},
		{0, "openai", 1},
		{0, "", 1},
		{-2, "", 1},
	}
	for _, tt := range tests {
		if got := evalJobs(tt.jobs, tt.provider); got != tt.want {
			t.Errorf("evalJobs(%d, %q) = %d, want %d", tt.jobs, tt.provider, got, tt.want)
		}
	}
}

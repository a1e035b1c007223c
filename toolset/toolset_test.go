package toolset

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
)

// TestToolsetUntrusted: for an untrusted configuration the toolset's
// linter checks Go files alone, with the in-process analysers, and its
// test runners run nothing; trusted, every language and the command
// linters are there.
func TestToolsetUntrusted(t *testing.T) {
	t.Parallel()
	ts := New(slog.New(slog.DiscardHandler), nil)
	cfg := config.Default()
	cfg.Linters = []config.Linter{{Name: "sh", Command: []string{"sh", "-c", "exit 0"}, Extensions: []string{".sh"}, Errorformat: []string{"%f:%l: %m"}}}
	tests := []struct {
		trusted bool
		applies map[string]bool
	}{
		{false, map[string]bool{"a.go": true, "a.py": false, "a.cc": false, "A.java": false, "a.sh": false}},
		{true, map[string]bool{"a.go": true, "a.py": true, "a.cc": true, "A.java": true, "a.sh": true}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("trusted=%v", tt.trusted), func(t *testing.T) {
			cfg.Trusted = tt.trusted
			l, err := ts.Linter(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ll := l.(*langs.Linter)
			for file, want := range tt.applies {
				if got := ll.Applies(filepath.Join(t.TempDir(), file)); got != want {
					t.Errorf("Applies(%s) = %v, want %v", file, got, want)
				}
			}
			if tt.trusted {
				return // trusted testers run tests: the e2e tests show it
			}
			tests, candidates := ts.Testers(cfg)
			for _, tr := range []runner.Tester{tests, candidates} {
				_, err := tr.Test(t.Context(), filepath.Join(t.TempDir(), "a_test.go"), nil, 0)
				if !errors.Is(err, ErrUntrusted) {
					t.Errorf("untrusted test run: %v, want ErrUntrusted", err)
				}
			}
		})
	}
}

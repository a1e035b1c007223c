package golang

import (
	"bytes"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/golang/shortcut"
)

// TestShortcutsOff edits the package of irModule with Analyzers built
// with the audited module versions and with others, and checks that
// without the audited versions the shortcuts are off, a log line says so,
// and every result still equals a full analysis (and the audited
// Analyzer's).
func TestShortcutsOff(t *testing.T) {
	dir := writeModule(t, maps.Clone(irModule))
	c := filepath.Join(dir, "c.go")
	opts := AnalyzerOptions{Checks: []string{"all"}}
	edit := func(old, new string) map[string][]byte {
		src := irModule["c.go"]
		if strings.Count(src, old) != 1 {
			t.Fatalf("%q is not in c.go once", old)
		}
		return map[string][]byte{c: []byte(strings.Replace(src, old, new, 1))}
	}
	edits := []map[string][]byte{
		edit("pattern.String() }\n", "pattern.String() }\n\nfunc more() int { return Double(1) + 1 }\n"),
		edit(`"%d"`, `"%d!"`),
		nil,
	}
	full := make([]*Result, len(edits))
	for i, overlay := range edits {
		full[i] = fullResultWith(t, opts, c, overlay)
	}
	with := func(path, version string) map[string]string {
		m := maps.Clone(shortcut.BuildModules())
		if m == nil {
			m = make(map[string]string)
		}
		if version == "" {
			delete(m, path)
		} else {
			m[path] = version
		}
		return m
	}
	for _, tt := range []struct {
		name  string
		built map[string]string
		on    bool
		why   string // in the log line
	}{
		{"audited", shortcut.BuildModules(), true, ""},
		{"another staticcheck", with("honnef.co/go/tools", "v0.9.0"), false, "honnef.co/go/tools v0.9.0, audited v0.8.2"},
		{"another x/tools", with("golang.org/x/tools", "v0.53.0"), false, "golang.org/x/tools v0.53.0"},
		{"x/tools not listed", with("golang.org/x/tools", ""), false, "golang.org/x/tools: version unknown"},
		{"no build information", nil, false, "version unknown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			o := opts
			o.CacheDir = testCacheDir
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			an, err := newAnalyzerBuilt(o, tt.built)
			if err != nil {
				t.Fatal(err)
			}
			if an.shortcuts.On != tt.on {
				t.Fatalf("shortcuts on = %v, want %v (%s)", an.shortcuts.On, tt.on, an.shortcuts.Why)
			}
			logged := strings.Contains(logs.String(), "shortcuts are off")
			if logged == tt.on || !strings.Contains(logs.String(), tt.why) {
				t.Errorf("log %q: want a line that the shortcuts are off (%v) with %q", logs.String(), !tt.on, tt.why)
			}
			t.Logf("log: %s", strings.TrimSpace(logs.String()))
			analyze(t, an, c, nil)
			for i, overlay := range edits {
				sameResults(t, incrementalResult(t, an, c, overlay), full[i])
			}
			st := an.Stats()
			took := st.FilesReused + st.DeclsKept + st.PartialIR + st.PartialIRRebuilt
			if (took > 0) != tt.on {
				t.Errorf("Stats = %+v: shortcuts taken %v, want %v", st, took > 0, tt.on)
			}
			if strings.Count(logs.String(), "shortcuts are off") > 1 {
				t.Errorf("the shortcuts are said to be off more than once: %q", logs.String())
			}
		})
	}
}

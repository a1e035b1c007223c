package provider

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	tests := []struct {
		name     string
		s        Settings
		wantName string
		wantNote bool
		wantErr  string
	}{
		{"no model: offline rules", Settings{}, "rules", true, ""},
		{"a model selects openai", Settings{Model: "m", BaseURL: "http://127.0.0.1:1/v1"}, "openai", false, ""},
		{"explicit rules", Settings{Kind: KindRules, Model: "m"}, "rules", false, ""},
		{"replay without a record", Settings{Kind: KindReplay}, "", false, "needs a session record"},
		{"replay of a missing record", Settings{Kind: KindReplay, Replay: filepath.Join(t.TempDir(), "none.json")}, "", false, "reading the session record"},
		{"unknown kind", Settings{Kind: "magic"}, "", false, `unknown provider "magic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, note, err := New(tt.s)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.wantName || (note != "") != tt.wantNote {
				t.Errorf("got %s with note %q", p.Name(), note)
			}
		})
	}
	t.Setenv("FIXLOOP_MODEL", "from-env")
	if p, _, err := New(Settings{BaseURL: "http://127.0.0.1:1/v1"}); err != nil || p.Name() != "openai" || p.Model() != "from-env" {
		t.Errorf("FIXLOOP_MODEL should select openai: %v %v", p, err)
	}
}

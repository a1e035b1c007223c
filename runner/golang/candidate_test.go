package golang

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestCandidateLoads: a candidate's text (runner.WithCandidate) whose
// imports are those of the last load is checked incrementally, with no go
// list; one that needs a load gets it confined (golist), also under
// sandbox: none, so that its cgo preamble reads nothing of the host, while
// the user's own text (the control) loads in this process.
func TestCandidateLoads(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	secretDir := t.TempDir()
	canary := "CANARY-AWS-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	creds := filepath.Join(secretDir, "credentials")
	if err := os.WriteFile(creds, []byte("[default]\naws_secret_access_key = "+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const base = "package p\n\nimport \"strings\"\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n"
	leak := "package p\n\n/*\n#define aws_secret_access_key ; char *b =\nvoid leak(void) {\n#include \"" + creds + "\"\n}\n*/\nimport \"C\"\n\nfunc Up(s string) string { C.leak(); return s }\n"
	tests := []struct {
		name        string
		text        string
		candidate   bool
		unconfined  bool
		incremental bool   // checked without a load
		want        string // in the alerts
		wantLeak    bool
		clean       bool // no compiler alert
	}{
		{name: "candidate with the same imports", text: strings.Replace(base, "ToUpper", "ToLower", 1), candidate: true, incremental: true},
		{name: "candidate importing a package the graph lacks", text: "package p\n\nimport \"example.com/m/q\"\n\nfunc Up(s string) string { return q.Q(s) }\n", candidate: true, clean: true},
		{name: "candidate including a host file", text: leak, candidate: true, want: "No such file or directory"},
		{name: "candidate under sandbox none", text: leak, candidate: true, unconfined: true, want: "No such file or directory"},
		{name: "the user's own text (control)", text: leak, want: "aws_secret_access_key", wantLeak: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"p/p.go": base, "q/q.go": "package q\n\nfunc Q(s string) string { return s }\n"})
			file := filepath.Join(dir, "p", "p.go")
			a := newAnalyzer(t, AnalyzerOptions{})
			analyze(t, a, file, nil) // the user's file, loaded in this process
			ctx := context.Background()
			if tt.candidate {
				ctx = runner.WithCandidate(ctx)
			}
			if tt.unconfined {
				ctx = sandbox.Unconfined(ctx)
			}
			before := a.Stats()
			res, err := a.Analyze(ctx, file, map[string][]byte{file: []byte(tt.text)})
			if err != nil {
				t.Fatal(err)
			}
			after := a.Stats()
			if inc := after.FullLoads == before.FullLoads; inc != tt.incremental {
				t.Errorf("Stats went from %+v to %+v: incremental %t, want %t", before, after, inc, tt.incremental)
			}
			var text strings.Builder
			for _, al := range res.Alerts {
				text.WriteString(alertString(al) + "\n")
			}
			for _, al := range res.Alerts {
				if tt.clean && al.Source == "compiler" {
					t.Errorf("compiler alert: %s", alertString(al))
				}
			}
			if tt.want != "" && !strings.Contains(text.String(), tt.want) {
				t.Errorf("the alerts do not say %q:\n%s", tt.want, text.String())
			}
			if leaked := strings.Contains(text.String(), canary); leaked != tt.wantLeak {
				t.Errorf("the alerts hold the host file's secret: %t, want %t:\n%s", leaked, tt.wantLeak, text.String())
			}
		})
	}
}

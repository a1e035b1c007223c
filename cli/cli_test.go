package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/toolset"
)

func run(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of stderr
	}{
		{"help", []string{"help"}, 0, "serve", ""},
		{"root -h", []string{"-h"}, 0, "Available Commands", ""},
		{"serve -h", []string{"serve", "-h"}, 0, "stdin and stdout", ""},
		{"check -h", []string{"check", "-h"}, 0, "Exit status", ""},
		{"version", []string{"version"}, 0, "fixloop v", ""},
		{"mcp -h", []string{"mcp", "-h"}, 0, "fixloop_check_candidate", ""},
		{"mcp with an argument", []string{"mcp", "x.go"}, 2, "", "mcp takes no arguments"},
		{"mcp bad root", []string{"mcp", "--root", "does-not-exist"}, 2, "", "--root does-not-exist"},
		{"unknown command", []string{"frobnicate"}, 2, "", "unknown command"},
		{"check without file", []string{"check"}, 2, "", "check needs a FILE or a Go package pattern"},
		{"replay without records", []string{"replay"}, 2, "", "replay needs session records"},
		{"fix with a misspelt goal", []string{"fix", "--goal", "refactr", "../testdata/calc/calc.go"}, 2, "", `unknown goal "refactr"`},
		{"check bad flag", []string{"check", "--nope", "x.go"}, 2, "", "unknown flag"},
		{"check missing file", []string{"check", "does-not-exist.go"}, 2, "", "does-not-exist.go"},
		{"unsupported file", []string{"check", "../README.md"}, 2, "", "fixloop has no linter for .md files"},
		{"bad log level", []string{"check", "--log-level", "loud", "x.go"}, 2, "", "--log-level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestCheckJSONOnExample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "goexample", "shapes.go")
	code, out, errOut := run(t, "check", "--json", path)
	if code != ExitProblems {
		t.Fatalf("exit code %d, want 1 for failing tests (stderr %s)", code, errOut)
	}
	var got toolset.FileCheck
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	found := false
	for _, d := range got.Diagnostics {
		if d.Source == "vet" && (d.Code == "printf" || strings.HasPrefix(d.Code, "printf/")) && d.Line == 57 && d.Severity == "warning" && d.Category == "Error-prone" {
			found = true
		}
		if d.File != got.File {
			t.Errorf("diagnostic for another file: %+v", d)
		}
	}
	if !found {
		t.Errorf("no vet printf diagnostic at line 57 in %+v", got.Diagnostics)
	}
	if !got.Tests.Ran || got.Tests.Total != 3 || got.Tests.Failed != 1 || len(got.Tests.Failures) != 1 ||
		got.Tests.Failures[0].Test != "TestPerimeter" || got.Tests.Failures[0].Line != 13 {
		t.Errorf("tests = %+v", got.Tests)
	}
	// The JSON keys are a contract.
	for _, key := range []string{`"end_line"`, `"end_column"`, `"severity"`, `"category"`, `"failures"`, `"passed"`} {
		if !strings.Contains(out, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestCheckTableAndExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("go.mod", "module example.com/clean\n\ngo 1.22\n")
	clean := write("clean.go", "// Package clean is fine.\npackage clean\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	write("clean_test.go", "package clean\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n")

	code, out, errOut := run(t, "check", clean)
	if code != ExitOK {
		t.Fatalf("clean file: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "no diagnostics") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("clean table output:\n%s", out)
	}

	broken := write("broken.go", "package clean\n\nfunc Broken() int { return \"x\" }\n")
	code, out, _ = run(t, "check", "--tests=false", broken)
	if code != ExitProblems || !strings.Contains(out, "error") || !strings.Contains(out, "compiler") {
		t.Errorf("type error: exit %d, output:\n%s", code, out)
	}
}

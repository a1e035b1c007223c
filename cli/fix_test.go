package cli

import (
	"encoding/json"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// calcCopy copies testdata/calc and returns the path of calc.go.
func calcCopy(t *testing.T) string {
	return filepath.Join(testtree.Copy(t, filepath.Join("..", "testdata", "calc")), "calc.go")
}

func TestFixOfflineRules(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	file := calcCopy(t)
	before, _ := os.ReadFile(file)
	record := filepath.Join(t.TempDir(), "session.json")

	code, out, errOut := run(t, "fix", "--record", record, file)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "offline rules provider") {
		t.Errorf("stderr does not say that the rules provider stands in: %q", errOut)
	}
	for _, want := range []string{"fixloop refactor", "round 1/3: accepted", `-	return fmt.Sprintf("hello")`, `+	return "hello"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("fix without --write changed the file")
	}
	rec, err := refactor.ReadRecord(record)
	if err != nil || !rec.Outcome.Solved || rec.Tools["fixloop"] == "" || rec.Tools["go"] == "" {
		t.Errorf("record: %+v, %v", rec, err)
	}

	code, out, _ = run(t, "fix", "--json", "--write", file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	for _, key := range []string{"file", "language", "goal", "provider", "model", "solved", "solved_round", "rounds", "final"} {
		if _, ok := s[key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	final := s["final"].(map[string]any)
	for _, key := range []string{"round", "tests_passed", "tests_total", "alerts_before", "alerts_after", "fixed", "new", "lines_edited"} {
		if _, ok := final[key]; !ok {
			t.Errorf("final lacks %q", key)
		}
	}
	after, _ := os.ReadFile(file)
	if strings.Contains(string(after), `fmt.Sprintf("hello")`) || !strings.Contains(string(after), `return "hello"`) {
		t.Errorf("--write did not write the result:\n%s", after)
	}
	// Nothing is left to refactor now.
	code, out, _ = run(t, "fix", "--goal", "refactor", file)
	if code != ExitOK || !strings.Contains(out, "nothing to do") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

func TestFixUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fix"}, "exactly one FILE"},
		{[]string{"fix", "--goal", "polish", filepath.Join("..", "testdata", "calc", "calc.go")}, `unknown goal "polish"`},
		{[]string{"fix", "--provider", "magic", filepath.Join("..", "testdata", "calc", "calc.go")}, `unknown provider "magic"`},
		{[]string{"fix", "missing.go"}, "missing.go"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
		// A usage error comes before anything runs or is announced.
		if strings.Contains(errOut, "no model is configured") {
			t.Errorf("%v: the provider's banner came before the usage error:\n%s", tt.args, errOut)
		}
	}
}

// TestFixFirstExample runs the README's first command on a copy of
// testdata/calc: the rules provider clears six alerts of six rules, of go
// vet and staticcheck, in two checked rounds (the sixth fix's edits lie
// inside the fifth's, so it waits for the fifth to be applied and checked),
// and the package's tests pass before, in every round and after.
func TestFixFirstExample(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	file := filepath.Join(testtree.Copy(t, filepath.Join("..", "testdata", "calc")), "tally", "tally.go")
	record := filepath.Join(t.TempDir(), "session.json")
	code, out, errOut := run(t, "fix", "--store", "off", "--record", record, file)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"baseline: builds true, tests 5/5, 6 alerts\n",
		"  37:9 vet stringintconv: conversion from int to string",
		"round 1/3: alerts_remaining (tests 5/5, alerts 1, fixed 5, new 0,",
		"  40:9 staticcheck QF1004: could use strings.ReplaceAll instead\n",
		"round 2/3: accepted (tests 5/5, alerts 0, fixed 6, new 0,",
		"result: round 2 (solved): tests 5/5, alerts 6 -> 0, fixed 6, new 0, 12 lines edited\n",
		"-\tfor i, _ := range scores {\n+\tfor i := range scores {\n",
		"+\tfirst = append(first, second...)\n",
		"+\treturn strings.Contains(roster, name)\n",
		"+\treturn fmt.Sprintf(\"%c\", letter)\n",
		"-\treturn fmt.Sprintf(\"%s\", strings.Replace(game, \"_\", \" \", -1))\n+\treturn strings.ReplaceAll(game, \"_\", \" \")\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rec, err := refactor.ReadRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	tools, rules := map[string]bool{}, map[string]bool{}
	for _, a := range rec.Baseline.Alerts {
		tools[a.Source], rules[a.Code] = true, true
	}
	if !tools["vet"] || !tools["staticcheck"] || len(rules) != 6 {
		t.Errorf("baseline alerts from %v, rules %v; want vet and staticcheck, six rules", tools, rules)
	}
	if len(rec.Rounds) != 2 || rec.Baseline.Tests == nil || !rec.Baseline.Tests.OK() || rec.Baseline.TestsPassed() != 5 {
		t.Fatalf("%d rounds, baseline tests %+v", len(rec.Rounds), rec.Baseline.Tests)
	}
	for _, r := range rec.Rounds {
		if !r.Metrics.Compiles || !r.Metrics.KeepsTests || r.Metrics.TestsPassed != 5 {
			t.Errorf("round %d: %+v", r.Round, r.Metrics)
		}
	}
	// The result is gofmt-formatted, as the file was.
	if formatted, err := format.Source([]byte(rec.Outcome.Text)); err != nil || string(formatted) != rec.Outcome.Text {
		t.Errorf("the result is not gofmt-formatted (%v):\n%s", err, rec.Outcome.Text)
	}
}

// TestFixSameSpotFixes: in a Go 1.24 module, go vet and staticcheck both
// flag fmt.Sprintf(name), with fixes that do not touch but do not combine
// (fmt.Sprint("%s", name)); the rules provider applies one of them, and the
// untested function keeps its behaviour. (vet's fix, fmt.Sprintf("%s",
// name), leads to S1025's, name, which leaves fmt unused; the provider
// removes the import.)
func TestFixSameSpotFixes(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":   "module example.com/title\n\ngo 1.24\n",
		"title.go": "// Package title makes headings.\npackage title\n\nimport \"fmt\"\n\n// Title is name.\nfunc Title(name string) string {\n\treturn fmt.Sprintf(name)\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, "fix", "--store", "off", filepath.Join(dir, "title.go"))
	if code != ExitOK || strings.Contains(out, `Sprint("%s"`) || !strings.Contains(out, "+\treturn fmt.Sprint(name)\n") && !strings.Contains(out, "+\treturn name\n") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A round whose candidate does not build has no alerts to compare with the
// baseline's: fix says so instead of counting every baseline alert fixed.
func TestFixUncompilableRoundComparesNoAlerts(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	file := calcCopy(t)
	text, _ := os.ReadFile(file)
	broken := strings.Replace(string(text), `return fmt.Sprintf("hello")`, `return "hello" +`, 1)
	fixed := strings.Replace(string(text), `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", broken)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
	)
	code, out, errOut := run(t, "fix", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", "FIXLOOP_UNCOMPILABLE_TEST_KEY", "--store", "off", file)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "round 1/3: compile_error (tests 0/0, alerts not compared: candidate does not build,") {
		t.Errorf("round 1 line:\n%s", out)
	}
	if !strings.Contains(out, "round 2/3: accepted (tests 4/4, alerts 0, fixed 1, new 0,") {
		t.Errorf("round 2 line:\n%s", out)
	}
}

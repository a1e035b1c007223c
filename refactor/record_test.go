package refactor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
)

// TestUncompilableRoundComparesNoAlerts: a candidate that does not build
// has no alerts to compare with the original's. Its analyzers saw no
// program (the Go analyzers report nothing on code that does not type
// check; clang-tidy reports part), so none of the baseline's alerts counts
// as fixed and none of its own as new; a later candidate that builds is
// measured as usual. The session is recomputed from recorded checks, so
// no tool runs.
func TestUncompilableRoundComparesNoAlerts(t *testing.T) {
	const file = "/p/a.go"
	alert := func(line int, code string) runner.Alert {
		return runner.Alert{File: file, Line: line, Source: "staticcheck", Code: code, Message: code + " message"}
	}
	original := "package a\n\nfunc A() {}\n\nfunc B() {}\n"
	broken := "package a\n\nfunc A( {}\n\nfunc B() {}\n"
	fixed := "package a\n\nfunc A() {}\n\nfunc B() { _ = 1 }\n"
	tests := &runner.TestReport{Passed: 1, Total: 1, PassedTests: []string{"TestA"}}
	reply := func(text string) model.Reply { return model.Reply{Content: "```go\n" + text + "```\n"} }
	for _, c := range []struct {
		name       string
		check      *Check
		wantFixed  int
		wantNew    int
		compared   bool
		alertsText string
	}{
		{
			name: "does not build, no alerts at all",
			check: &Check{CompileErrors: []runner.Alert{{File: file, Line: 3, Source: "compiler", Message: "expected ')'"}},
				Tests: &runner.TestReport{BuildFailed: true}},
			alertsText: "alerts not compared: candidate does not build",
		},
		{
			name: "does not build, with an alert of its own (as clang-tidy reports on broken C++)",
			check: &Check{Alerts: []runner.Alert{alert(5, "S1002")},
				CompileErrors: []runner.Alert{{File: file, Line: 3, Source: "compiler", Message: "expected ')'"}}},
			alertsText: "alerts not compared: candidate does not build",
		},
		{
			name:       "builds",
			check:      &Check{Alerts: []runner.Alert{alert(5, "S1002")}, Tests: tests},
			wantFixed:  1,
			wantNew:    0,
			compared:   true,
			alertsText: "alerts 1, fixed 1, new 0",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			candidate := broken
			if c.compared {
				candidate = fixed
			}
			rec := &Record{
				File: file, Goal: GoalRefactor, Settings: Settings{Rounds: 1}, Original: original,
				Baseline: &Check{Alerts: []runner.Alert{alert(3, "ST1000"), alert(5, "S1002")}, Tests: tests},
				Rounds:   []Round{{Round: 1, Reply: reply(candidate), Candidate: candidate, Check: c.check}},
			}
			got, err := Replay(context.Background(), rec, RecordedChecker(rec))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rounds) != 1 {
				t.Fatalf("%d rounds", len(got.Rounds))
			}
			r := &got.Rounds[0]
			if r.Metrics.Fixed != c.wantFixed || r.Metrics.New != c.wantNew || r.AlertsCompared() != c.compared {
				t.Errorf("metrics %+v, compared %v; want fixed %d, new %d, compared %v", r.Metrics, r.AlertsCompared(), c.wantFixed, c.wantNew, c.compared)
			}
			if s := r.AlertsText(); s != c.alertsText {
				t.Errorf("AlertsText %q, want %q", s, c.alertsText)
			}
			if sr := got.Summary().Rounds[0]; sr.AlertsCompared != c.compared || sr.Fixed != c.wantFixed || sr.New != c.wantNew {
				t.Errorf("summary round %+v", sr)
			}
			if !c.compared && (r.Verdict != VerdictCompileError || got.Offered()) {
				t.Errorf("verdict %s, offered %v", r.Verdict, got.Offered())
			}
		})
	}
	if s := (&Round{}).AlertsText(); s != "alerts not compared: no candidate" {
		t.Errorf("AlertsText without a candidate = %q", s)
	}
}

// TestRepoPath: a session's file is recorded relative to its repository,
// else its module, so that a replay finds it in another checkout.
func TestRepoPath(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("repo/.git/HEAD", "ref: refs/heads/main\n")
	mk("repo/go.mod", "module x\n")
	mk("repo/sub/go.mod", "module x/sub\n")
	mk("mod/go.mod", "module m\n")
	for _, c := range []struct{ file, want string }{
		{mk("repo/testdata/calc/calc.go", ""), "testdata/calc/calc.go"},
		{mk("repo/sub/a.go", ""), "sub/a.go"}, // the repository, not the nearer module
		{mk("mod/pkg/b.go", ""), "pkg/b.go"},
		{mk("loose/c.py", ""), ""},
	} {
		if got := repoPath(c.file); got != c.want {
			t.Errorf("repoPath(%s) = %q, want %q", c.file, got, c.want)
		}
	}
}

// TestLocate: a record finds its file where it was recorded, else by its
// repository path below the record's own repository, else below the
// current directory's; the error names the file by its repository path.
func TestLocate(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("clone/.git/HEAD")
	inClone := write("clone/testdata/calc/calc.go")
	recordInClone := write("clone/testdata/sessions/s.json")
	write("other/.git/HEAD")
	recordElsewhere := write("other/records/s.json")
	here := write("recorded/at/calc.go")
	gone := filepath.Join(root, "gone", "testdata", "calc", "calc.go")
	for _, c := range []struct {
		name, file, repoPath, record, cwd string
		want                              string // "" for an error
		wantErr                           []string
	}{
		{name: "where it was recorded", file: here, repoPath: "testdata/calc/calc.go", record: recordInClone, want: here},
		{name: "below the record's repository", file: gone, repoPath: "testdata/calc/calc.go", record: recordInClone, want: inClone},
		{name: "below the current directory's repository", file: gone, repoPath: "testdata/calc/calc.go", record: recordElsewhere,
			cwd: filepath.Join(root, "clone", "testdata"), want: inClone},
		{name: "a stored record: below the current directory", file: gone, repoPath: "testdata/calc/calc.go",
			cwd: filepath.Join(root, "clone"), want: inClone},
		{name: "not found", file: gone, repoPath: "testdata/calc/calc.go", record: recordElsewhere, cwd: filepath.Join(root, "other"),
			wantErr: []string{"the recorded file testdata/calc/calc.go is not on this machine (looked for it below " + filepath.Join(root, "other", "records")}},
		{name: "no repository path", file: gone, record: recordInClone,
			wantErr: []string{"the recorded file " + gone + " is not on this machine"}},
		{name: "a repository path outside the repository", file: gone, repoPath: "../../etc/passwd", record: recordInClone,
			wantErr: []string{"is not on this machine"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cwd != "" {
				t.Chdir(c.cwd)
			} else {
				t.Chdir(root)
			}
			rec := &Record{File: c.file, RepoPath: c.repoPath}
			got, err := rec.Locate(c.record)
			if c.want != "" {
				if err != nil || got != c.want {
					t.Errorf("Locate = %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Locate = %q, %v; want an error", got, err)
			}
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if c.repoPath == "testdata/calc/calc.go" && strings.Contains(err.Error(), c.file) {
				t.Errorf("error %q names the recorded absolute path, not the repository path", err)
			}
		})
	}
}

// TestDecodeRecordSchemas: a JSON file without a schema is not a record;
// schemas this fixloop does not read are refused by number.
func TestDecodeRecordSchemas(t *testing.T) {
	for _, c := range []struct {
		data      string
		notRecord bool
		wantErr   string
	}{
		{data: `{"about": "facts for tests", "languages": []}`, notRecord: true, wantErr: "x.json: not a fixloop session record"},
		{data: `[1, 2]`, wantErr: "decoding the session record x.json"},
		{data: `{"schema": 0}`, wantErr: "has schema 0"},
		{data: `{"schema": 99}`, wantErr: "has schema 99; this fixloop reads 1 to 1"},
		{data: `{"schema": 1, "id": "a", "repo_path": "testdata/calc/calc.go"}`},
	} {
		rec, err := DecodeRecord([]byte(c.data), "x.json")
		if c.wantErr == "" {
			if err != nil || rec.RepoPath != "testdata/calc/calc.go" {
				t.Errorf("%s: %+v, %v", c.data, rec, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) || errors.Is(err, ErrNotRecord) != c.notRecord {
			t.Errorf("%s: error %v, want %q (not a record: %v)", c.data, err, c.wantErr, c.notRecord)
		}
	}
}

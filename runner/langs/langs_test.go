package langs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

func TestDetect(t *testing.T) {
	tests := []struct{ path, id, want string }{
		{"/p/main.go", "", Go},
		{"/p/stats.py", "", Python},
		{"/p/Stats.java", "", Java},
		{"/p/vec.CPP", "", Cpp},
		{"/p/vec.h", "", Cpp},
		{"/p/script", "python", Python},
		{"/p/notes.txt", "", ""},
		{"/p/x.rs", "rust", ""},
	}
	for _, tt := range tests {
		if got := Detect(tt.path, tt.id); got != tt.want {
			t.Errorf("Detect(%q, %q) = %q, want %q", tt.path, tt.id, got, tt.want)
		}
	}
	if got := Extensions(Python); !slices.Equal(got, []string{".py", ".pyi"}) {
		t.Errorf("Extensions(python) = %v", got)
	}
}

// fakeLinter returns fixed alerts or an error, and remembers its calls.
type fakeLinter struct {
	source      string
	exts        []string
	err         error
	calls       int
	invalidated []string
}

func (f *fakeLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return &runner.LintResult{Unit: "unit:" + f.source, Files: []string{file}, Alerts: []runner.Alert{{File: file, Source: f.source, Line: 1}}}, nil
}

func (f *fakeLinter) Invalidate(dir string) { f.invalidated = append(f.invalidated, dir) }

func (f *fakeLinter) Applies(file string) bool {
	for _, e := range f.exts {
		if strings.HasSuffix(file, e) {
			return true
		}
	}
	return false
}

func sources(r *runner.LintResult) []string {
	var out []string
	for _, a := range r.Alerts {
		out = append(out, a.Source)
	}
	slices.Sort(out)
	return out
}

func TestLinterDispatch(t *testing.T) {
	py := &fakeLinter{source: "pylint"}
	goL := &fakeLinter{source: "vet"}
	shell := &fakeLinter{source: "shellcheck", exts: []string{".sh"}}
	pyExtra := &fakeLinter{source: "mypy", exts: []string{".py"}}
	broken := &fakeLinter{source: "broken", exts: []string{".py"}, err: errors.New("broken crashed")}
	l := &Linter{ByLanguage: map[string]runner.Linter{Python: py, Go: goL}, Generic: []Applier{shell, pyExtra, broken}}
	ctx := context.Background()

	r, err := l.Lint(ctx, "/p/a.py", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(r), []string{"fixloop", "mypy", "pylint"}; !slices.Equal(got, want) {
		t.Errorf("python sources = %v, want %v (a failing command linter becomes a note)", got, want)
	}
	if r.Unit != "unit:pylint" {
		t.Errorf("unit = %q, want the language linter's", r.Unit)
	}
	if r, err = l.Lint(ctx, "/p/run.sh", nil); err != nil || !slices.Equal(sources(r), []string{"shellcheck"}) {
		t.Errorf("shell file: %v, %v", r, err)
	}
	if _, err := l.Lint(ctx, "/p/notes.txt", nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unsupported file: err = %v", err)
	}
	if goL.calls != 0 {
		t.Errorf("the Go linter ran for other files")
	}
	for file, want := range map[string]bool{"/p/a.py": true, "/p/run.sh": true, "/p/main.go": true, "/p/Main.java": false, "/p/x.txt": false} {
		if got := l.Applies(file); got != want {
			t.Errorf("Applies(%s) = %v, want %v", file, got, want)
		}
	}
	l.Invalidate("/p")
	if len(py.invalidated) != 1 || len(shell.invalidated) != 1 {
		t.Errorf("Invalidate not forwarded: %v %v", py.invalidated, shell.invalidated)
	}
}

type fakeTester struct{ name string }

func (f *fakeTester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	return &runner.TestReport{Tool: f.name}, nil
}
func (f *fakeTester) Invalidate(string) {}

func TestTesterDispatch(t *testing.T) {
	tr := &Tester{
		ByLanguage:   map[string]runner.Tester{Python: &fakeTester{"pytest"}},
		Judge:        &fakeTester{"judge"},
		JudgeApplies: func(file string) bool { return strings.HasSuffix(file, "sum.py") },
	}
	for file, want := range map[string]string{"/p/stats.py": "pytest", "/p/sum.py": "judge", "/p/vec.cc": ""} {
		rep, err := tr.Test(context.Background(), file, nil, time.Second)
		if err != nil || rep.Tool != want {
			t.Errorf("%s: tool %q, err %v; want %q", file, rep.Tool, err, want)
		}
	}
}

// hangingLinter blocks until its context is done.
type hangingLinter struct{}

func (hangingLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (hangingLinter) Invalidate(string) {}

// TestLinterTimeout: linters that hang until their context ends are
// stopped at the timeout (they hang for ever: only the timeout ends them),
// with a note; the one that answers keeps its alerts. The timeout leaves
// that one, which answers at once, room on a loaded machine (issue 23).
func TestLinterTimeout(t *testing.T) {
	py := &fakeLinter{source: "pylint"}
	l := &Linter{
		ByLanguage: map[string]runner.Linter{Python: py, Cpp: hangingLinter{}},
		Generic:    []Applier{&hangingApplier{}},
		Timeout:    2 * time.Second,
	}
	r, err := l.Lint(context.Background(), "/p/a.py", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(r); !slices.Equal(got, []string{"fixloop", "pylint"}) {
		t.Errorf("sources = %v, want the note and pylint's alert", got)
	}
	for _, a := range r.Alerts {
		if a.Source == "fixloop" && !strings.Contains(a.Message, "the linter *langs.hangingApplier of a.py did not finish within 2s") {
			t.Errorf("note = %q", a.Message)
		}
	}
	// The language's own linter hanging, alone: a note, not an error.
	r, err = l.Lint(context.Background(), "/p/a.cc", nil)
	if err != nil || len(r.Alerts) != 1 || r.Alerts[0].Source != "fixloop" ||
		!strings.Contains(r.Alerts[0].Message, "the C++ linters of a.cc did not finish") {
		t.Errorf("hanging C++ linter: %+v, %v", r, err)
	}
	// The caller cancelling is an error, not a note.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Lint(ctx, "/p/a.cc", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

type hangingApplier struct{ hangingLinter }

func (*hangingApplier) Applies(file string) bool { return strings.HasSuffix(file, ".py") }

// unitLinter reports one alert in each file of a two-file unit, like the Go
// analyzer does for a package.
type unitLinter struct{}

func (unitLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	files := []string{"/p/a.go", "/p/b.go"}
	r := &runner.LintResult{Unit: "p", Files: files}
	for _, f := range files {
		r.Alerts = append(r.Alerts, runner.Alert{File: f, Source: "vet"})
	}
	return r, nil
}
func (unitLinter) Invalidate(string) {}

// TestGenericAlertsOfOtherUnitFilesKept: a pass of a.go republishes b.go
// with the Go alerts; b.go's command-linter alerts from its own last pass
// stay with them.
func TestGenericAlertsOfOtherUnitFilesKept(t *testing.T) {
	custom := &fakeLinter{source: "custom", exts: []string{".go"}}
	l := &Linter{ByLanguage: map[string]runner.Linter{Go: unitLinter{}}, Generic: []Applier{custom}}
	ctx := context.Background()
	if _, err := l.Lint(ctx, "/p/b.go", nil); err != nil {
		t.Fatal(err)
	}
	r, err := l.Lint(ctx, "/p/a.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	perFile := map[string][]string{}
	for _, a := range r.Alerts {
		perFile[a.File] = append(perFile[a.File], a.Source)
	}
	for _, f := range []string{"/p/a.go", "/p/b.go"} {
		slices.Sort(perFile[f])
		if !slices.Equal(perFile[f], []string{"custom", "vet"}) {
			t.Errorf("%s alerts from %v, want custom and vet", f, perFile[f])
		}
	}
}

// TestCandidateLinterFailure: where the language's own linter fails on a
// candidate's text, Lint fails, so that the candidate does not pass for
// free of alerts; on the user's text, and for a command linter, the
// failure is a note; a missing tool is a note for both.
func TestCandidateLinterFailure(t *testing.T) {
	crashed := errors.New("the analysis crashed")
	tests := []struct {
		name      string
		lang      error
		command   error
		candidate bool
		wantErr   bool
	}{
		{"user's text, language linter fails", crashed, nil, false, false},
		{"candidate, language linter fails", crashed, nil, true, true},
		{"candidate, language linter missing", &tool.MissingError{}, nil, true, false},
		{"candidate, command linter fails", nil, crashed, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Linter{
				ByLanguage: map[string]runner.Linter{Python: &fakeLinter{source: "pylint", err: tt.lang}},
				Generic:    []Applier{&fakeLinter{source: "mypy", exts: []string{".py"}, err: tt.command}},
			}
			ctx := context.Background()
			if tt.candidate {
				ctx = runner.WithCandidate(ctx)
			}
			r, err := l.Lint(ctx, "/p/a.py", nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Lint = %v, %v; want an error: %t", r, err, tt.wantErr)
			}
			if err == nil && !slices.Contains(sources(r), "fixloop") {
				t.Errorf("Lint sources = %v, want a fixloop note for the failure", sources(r))
			}
		})
	}
}

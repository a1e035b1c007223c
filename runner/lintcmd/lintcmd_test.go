package lintcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

const (
	E = runner.SeverityError
	W = runner.SeverityWarning
	I = runner.SeverityInformation
	H = runner.SeverityHint
)

// fakeText is the text fakelint.sh's findings point into.
const fakeText = "#!/bin/sh\nx=1\n    thing here\n  hint\n"

// fakeWant is what fakelint.sh reports about fakeText, in its order.
var fakeWant = []got{
	{1, 1, 1, 2, E, "E2", "bad start", "#"},
	{3, 5, 3, 10, W, "X1", "thing", "thing"},
	{2, 1, 2, 2, I, "I3", "look here", "x"},
	{4, 3, 4, 7, H, "N4", "maybe", "hint"},
}

// TestLint runs the fake linters in testdata through every output reader
// and input mode and checks the alerts on the checked text.
func TestLint(t *testing.T) {
	needSh(t)
	fake := func(mod func(*Spec)) Spec {
		s := Spec{
			Name:        "fakelint",
			Command:     []string{script(t, "fakelint.sh"), "${file}"},
			Extensions:  []string{".sh"},
			Errorformat: gccFormat,
			CodePattern: bracketCode,
		}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	eslint := &JSONMapping{
		Items: "0.messages", Line: "line", Column: "column", EndLine: "endLine", EndColumn: "endColumn",
		Code: "ruleId", Message: "message", Severity: "severity",
		SeverityMap:  map[string]string{"2": "error", "1": "warning"},
		ColumnOffset: 1,
	}
	tests := []struct {
		name     string
		spec     Spec
		text     string
		want     []got
		wantNote string // the one note alert's message holds this
	}{
		{name: "errorformat, tempfile", spec: fake(nil), text: fakeText, want: fakeWant},
		{
			name: "stderr output",
			spec: fake(func(s *Spec) { s.Command = append(s.Command, "stderr"); s.Output = OutputStderr }),
			text: fakeText, want: fakeWant,
		},
		{
			name: "stdout output ignores stderr",
			spec: fake(func(s *Spec) { s.Command = append(s.Command, "stderr") }),
			text: fakeText, want: nil,
		},
		{
			name: "both outputs, stdout first",
			spec: fake(func(s *Spec) { s.Command = append(s.Command, "both"); s.Output = OutputBoth }),
			text: fakeText, want: append(slices.Clone(fakeWant[1:]), fakeWant[0]),
		},
		{
			name: "rune columns",
			spec: fake(func(s *Spec) { s.ColumnUnit = runner.ColumnRunes }),
			text: "#!/bin/sh\nx=1\nééééthing here\n  hint\n",
			want: []got{
				fakeWant[0],
				{3, 9, 3, 14, W, "X1", "thing", "thing"},
				fakeWant[2], fakeWant[3],
			},
		},
		{
			name: "no code pattern keeps the message whole",
			spec: fake(func(s *Spec) { s.CodePattern = "" }),
			text: fakeText,
			want: []got{
				{1, 1, 1, 2, E, "", "bad start [E2]", "#"},
				{3, 5, 3, 10, W, "", "thing [X1]", "thing"},
				{2, 1, 2, 2, I, "", "look here [I3]", "x"},
				{4, 3, 4, 7, H, "", "maybe [N4]", "hint"},
			},
		},
		{
			name: "stdin, <stdin> file name",
			spec: Spec{Name: "todo", Command: []string{script(t, "todolint.sh")}, Extensions: []string{".txt"},
				Errorformat: gccFormat},
			text: "a\nb TODO\nTODO c\n",
			want: []got{{2, 3, 2, 7, W, "", "TODO left", "TODO"}, {3, 1, 3, 5, W, "", "TODO left", "TODO"}},
		},
		{
			name: "stdin, - file name",
			spec: Spec{Name: "todo", Command: []string{script(t, "todolint.sh"), "-"}, Extensions: []string{".txt"},
				Errorformat: gccFormat},
			text: "TODO\n",
			want: []got{{1, 1, 1, 5, W, "", "TODO left", "TODO"}},
		},
		{
			name: "stdin, base name",
			spec: Spec{Name: "todo", Command: []string{script(t, "todolint.sh"), "${name}"}, Extensions: []string{".txt"},
				Errorformat: gccFormat},
			text: "x\n  TODO\n",
			want: []got{{2, 3, 2, 7, W, "", "TODO left", "TODO"}},
		},
		{
			name: "stdin, another file's findings are dropped",
			spec: Spec{Name: "todo", Command: []string{script(t, "todolint.sh"), "/elsewhere/b.txt"}, Extensions: []string{".txt"},
				Errorformat: gccFormat},
			text: "TODO\n",
			want: nil,
		},
		{
			name: "multi-line errorformat",
			spec: Spec{Name: "multi", Command: []string{script(t, "multiline.sh"), "${file}"}, Extensions: []string{".sh"},
				Errorformat: []string{"%E%f:%l:%c: error", "%W%f:%l:%c: warning", "%C    %m", "%Z"}},
			text: fakeText,
			want: []got{
				{4, 2, 4, 3, E, "", "first part\nsecond part", " "},
				{2, 1, 2, 2, W, "", "only part", "x"},
			},
		},
		{
			name:     "exit code not accepted",
			spec:     fake(func(s *Spec) { s.Command = []string{script(t, "fail.sh"), "${file}"} }),
			text:     fakeText,
			wantNote: "fakelint failed with exit code 3: fatal: cannot read config .fakelintrc",
		},
		{
			name: "exit code accepted",
			spec: fake(func(s *Spec) {
				s.Command = []string{script(t, "fail.sh"), "${file}"}
				s.ExitCodes = []int{0, 3}
			}),
			text: fakeText,
			want: []got{{1, 1, 1, 2, W, "X1", "half done", "#"}},
		},
		{
			name: "exit code 1 not accepted when codes are given",
			spec: fake(func(s *Spec) { s.ExitCodes = []int{0} }),
			text: fakeText, wantNote: "fakelint failed with exit code 1: ",
		},
		{
			name: "json with severity map and 0-based columns",
			spec: Spec{Name: "eslint", Command: []string{script(t, "eslint.sh"), "${file}"}, Extensions: []string{".sh"},
				JSON: eslint},
			text: fakeText,
			want: []got{
				{2, 1, 2, 2, E, "no-unused-vars", "'x' is unused", "x"},
				{3, 5, 3, 10, W, "semi", "Missing semicolon", "thing"},
				{1, 1, 1, 2, E, "", "Parsing error", "#"},
			},
		},
		{
			name: "json lines",
			spec: Spec{Name: "jl", Command: []string{script(t, "jsonlines.sh"), "${file}"}, Extensions: []string{".sh"},
				JSON: &JSONMapping{File: "path", Line: "pos.line", Column: "pos.col", Code: "rule", Message: "text",
					Severity: "level", SeverityMap: map[string]string{"HIGH": "error", "LOW": "hint"}}},
			text: fakeText,
			want: []got{{1, 1, 1, 2, E, "R1", "first", "#"}, {2, 3, 2, 4, H, "R2", "second", "1"}},
		},
		{
			name: "output that is not json",
			spec: fake(func(s *Spec) { s.Errorformat = nil; s.JSON = &JSONMapping{Message: "m"} }),
			text: fakeText, wantNote: "reading the output of fakelint: output is neither JSON nor JSON Lines",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			file := writeFile(t, dir, "a"+tt.spec.Extensions[0], "stale text on disk\n")
			res, err := newLinter(t, tt.spec).Lint(t.Context(), file, map[string][]byte{file: []byte(tt.text)})
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if res.Unit != file || !slices.Equal(res.Files, []string{file}) {
				t.Errorf("Unit, Files = %q, %q; want the file", res.Unit, res.Files)
			}
			for _, a := range res.Alerts {
				if a.File != file {
					t.Errorf("alert %+v: File = %q, want %q", a, a.File, file)
				}
			}
			if tt.wantNote != "" {
				if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, tt.wantNote) {
					t.Fatalf("alerts = %+v, want one fixloop note containing %q", res.Alerts, tt.wantNote)
				}
				return
			}
			for _, a := range res.Alerts {
				if a.Source != tt.spec.Name || a.Category != runner.CategoryOther {
					t.Errorf("alert %+v: Source, Category = %q, %q; want %q, Other", a, a.Source, a.Category, tt.spec.Name)
				}
			}
			if g := summarize(t, tt.text, res.Alerts); !slices.Equal(g, tt.want) {
				t.Errorf("alerts:\n got %+v\nwant %+v", g, tt.want)
			}
		})
	}
}

// TestInputModes checks the placeholders, the working directory and what
// reaches stdin in every input mode, and that the user's file is never
// written.
func TestInputModes(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	const disk = "saved-line\nmore\n"
	file := writeFile(t, dir, "prog.sh", disk)
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	root := realDir(t)
	tests := []struct {
		name     string
		input    string
		root     string
		overlay  string // "" for none
		wantTemp bool   // the tool sees a temporary copy
		want     map[string]string
	}{
		{name: "default with ${file} is tempfile", overlay: "edited-line\n", wantTemp: true,
			want: map[string]string{"root": dir, "name": "prog.sh", "stdin": ""}},
		{name: "stdin", input: InputStdin, overlay: "edited-line\n",
			want: map[string]string{"file": file, "dir": dir, "pwd": dir, "stdin": "edited-line"}},
		{name: "stdin without overlay reads the disk", input: InputStdin,
			want: map[string]string{"file": file, "stdin": "saved-line"}},
		{name: "file without overlay", input: InputFile,
			want: map[string]string{"file": file, "dir": dir, "pwd": dir, "stdin": ""}},
		{name: "file with an overlay equal to the disk", input: InputFile, overlay: disk,
			want: map[string]string{"file": file, "dir": dir, "pwd": dir}},
		{name: "file with unsaved text falls back to tempfile", input: InputFile, overlay: "edited-line\n", wantTemp: true,
			want: map[string]string{"name": "prog.sh", "stdin": ""}},
		{name: "root given", input: InputFile, root: root,
			want: map[string]string{"file": file, "root": root}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLinter(t, Spec{
				Name:        "args",
				Command:     []string{script(t, "args.sh"), "${file}", "${dir}", "${root}", "${name}"},
				Extensions:  []string{".sh"},
				Input:       tt.input,
				Root:        tt.root,
				Errorformat: []string{"%f:%l:%c: %tnfo: %m"},
			})
			var overlay map[string][]byte
			if tt.overlay != "" {
				overlay = map[string][]byte{file: []byte(tt.overlay)}
			}
			res, err := l.Lint(t.Context(), file, overlay)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if len(res.Alerts) != 1 {
				t.Fatalf("alerts = %+v, want the one args.sh prints", res.Alerts)
			}
			a := res.Alerts[0]
			if a.File != file || a.Severity != I {
				t.Errorf("File, Severity = %q, %v; want %q, information", a.File, a.Severity, file)
			}
			seen := fields(a.Message)
			for k, v := range tt.want {
				if seen[k] != v {
					t.Errorf("%s = %q, want %q (message %q)", k, seen[k], v, a.Message)
				}
			}
			if tt.wantTemp {
				tmp := seen["dir"]
				if tmp == dir || seen["file"] != filepath.Join(tmp, "prog.sh") || seen["pwd"] != tmp {
					t.Errorf("file, dir, pwd = %q, %q, %q; want a copy in a temporary working directory", seen["file"], tmp, seen["pwd"])
				}
				if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("temporary directory %s left behind (%v)", tmp, err)
				}
			}
		})
	}
	after, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != disk || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the user's file changed: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the user's directory holds %d entries, want only prog.sh", len(entries))
	}
}

// fields splits args.sh's "k=v k=v" message.
func fields(msg string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(msg) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// logSpec is fakelint.sh logging its runs to log, which must be in the
// checked file's directory: with input file the command runs there, the
// one directory a confined command may write.
func logSpec(t *testing.T, log string) Spec {
	return Spec{
		Name:        "fakelint",
		Command:     []string{script(t, "fakelint.sh"), "${file}"},
		Input:       InputFile,
		Extensions:  []string{".sh"},
		Errorformat: gccFormat,
		CodePattern: bracketCode,
		Env:         []string{"FAKELINT_LOG=" + log},
	}
}

func TestDebounce(t *testing.T) {
	needSh(t)
	t.Run("canceled while waiting", func(t *testing.T) {
		dir := realDir(t)
		file := writeFile(t, dir, "a.sh", fakeText)
		log := newPipe(t, dir, "log")
		spec := logSpec(t, log.path)
		spec.Debounce = time.Hour // only the cancel ends the wait within the test
		l := newLinter(t, spec)
		ctx, cancel := context.WithCancel(withTrigger(t.Context(), runner.TriggerChange))
		time.AfterFunc(50*time.Millisecond, cancel)
		res, err := l.Lint(ctx, file, nil)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("Lint = %+v, %v; want nil, context.Canceled", res, err)
		}
		if n := runs(t, log); n != 0 {
			t.Errorf("the command ran %d times, want 0", n)
		}
	})
	// A wait is at least the debounce (a lower bound, which no loaded
	// machine breaks); a trigger that does not wait is told apart by a
	// debounce of an hour, with minutes of room for the run (issue 23).
	tests := []struct {
		name     string
		trigger  runner.Trigger
		debounce time.Duration
		minWait  time.Duration
		maxWait  time.Duration
	}{
		{"change waits", runner.TriggerChange, 200 * time.Millisecond, 200 * time.Millisecond, 5 * time.Minute},
		{"save does not wait", runner.TriggerSave, time.Hour, 0, 5 * time.Minute},
		{"unknown trigger does not wait", runner.TriggerUnknown, time.Hour, 0, 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			file := writeFile(t, dir, "a.sh", fakeText)
			log := newPipe(t, dir, "log")
			spec := logSpec(t, log.path)
			spec.Debounce = tt.debounce
			start := time.Now()
			res, err := newLinter(t, spec).Lint(withTrigger(t.Context(), tt.trigger), file, nil)
			d := time.Since(start)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if d < tt.minWait || d > tt.maxWait {
				t.Errorf("Lint took %v, want between %v and %v", d, tt.minWait, tt.maxWait)
			}
			if n := runs(t, log); n != 1 || len(res.Alerts) != len(fakeWant) {
				t.Errorf("runs, alerts = %d, %d; want 1, %d", n, len(res.Alerts), len(fakeWant))
			}
		})
	}
}

// TestOnSave: an on-save linter runs on open, save and unknown passes, and
// answers edit passes with the file's last result without running.
func TestOnSave(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.sh", fakeText)
	log := newPipe(t, dir, "log")
	spec := logSpec(t, log.path)
	spec.OnSave = true
	l := newLinter(t, spec)
	steps := []struct {
		name       string
		trigger    runner.Trigger
		overlay    string
		invalidate string // Invalidate this directory first
		wantRuns   int
		wantAlerts int
	}{
		{name: "change before any run", trigger: runner.TriggerChange, wantRuns: 0, wantAlerts: 0},
		{name: "save runs", trigger: runner.TriggerSave, wantRuns: 1, wantAlerts: 4},
		{name: "change returns the saved result", trigger: runner.TriggerChange, overlay: "changed\n", wantRuns: 1, wantAlerts: 4},
		{name: "open runs", trigger: runner.TriggerOpen, wantRuns: 2, wantAlerts: 4},
		{name: "unknown runs", trigger: runner.TriggerUnknown, wantRuns: 3, wantAlerts: 4},
		{name: "invalidating another directory keeps it", trigger: runner.TriggerChange, invalidate: dir + "x", wantRuns: 3, wantAlerts: 4},
		{name: "invalidating forgets it", trigger: runner.TriggerChange, invalidate: dir, wantRuns: 3, wantAlerts: 0},
	}
	for _, st := range steps {
		if st.invalidate != "" {
			l.Invalidate(st.invalidate)
		}
		var overlay map[string][]byte
		if st.overlay != "" {
			overlay = map[string][]byte{file: []byte(st.overlay)}
		}
		res, err := l.Lint(withTrigger(t.Context(), st.trigger), file, overlay)
		if err != nil {
			t.Fatalf("%s: Lint: %v", st.name, err)
		}
		if n := runs(t, log); n != st.wantRuns || len(res.Alerts) != st.wantAlerts {
			t.Errorf("%s: runs, alerts = %d, %d; want %d, %d", st.name, n, len(res.Alerts), st.wantRuns, st.wantAlerts)
		}
		if st.wantAlerts > 0 {
			if g := summarize(t, fakeText, res.Alerts); !slices.Equal(g, fakeWant) {
				t.Errorf("%s: alerts\n got %+v\nwant %+v", st.name, g, fakeWant)
			}
		}
	}
}

func TestMissingCommand(t *testing.T) {
	dir := realDir(t)
	file := writeFile(t, dir, "a.sh", fakeText)
	tests := []struct {
		name    string
		command string
		root    string
		want    []string
	}{
		{"on PATH", "fixloop-no-such-linter", "",
			[]string{"nolint is not installed", "looked for fixloop-no-such-linter on PATH", "comes with the Debian package nolint-pkg"}},
		{"relative to the root", "node_modules/.bin/nolint", "/nonexistent/ws",
			[]string{"looked for /nonexistent/ws/node_modules/.bin/nolint", "Debian package nolint-pkg"}},
		{"relative to the file", "bin/nolint", "",
			[]string{"looked for " + filepath.Join(dir, "bin/nolint")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLinter(t, Spec{
				Name: "nolint", Command: []string{tt.command, "${file}"}, Extensions: []string{".sh"},
				Errorformat: gccFormat, Package: "Debian package nolint-pkg", Root: tt.root,
			})
			if tl := l.Tool(); tl.Name != "nolint" || !slices.Equal(tl.Commands, []string{tt.command}) || tl.Package != "Debian package nolint-pkg" {
				t.Errorf("Tool() = %+v", tl)
			}
			res, err := l.Lint(t.Context(), file, nil)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if len(res.Alerts) != 1 {
				t.Fatalf("alerts = %+v, want one note", res.Alerts)
			}
			a := res.Alerts[0]
			if a.Source != "fixloop" || a.File != file || a.Line != 1 {
				t.Errorf("note = %+v", a)
			}
			for _, w := range tt.want {
				if !strings.Contains(a.Message, w) {
					t.Errorf("message %q lacks %q", a.Message, w)
				}
			}
		})
	}
}

func TestCategories(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.sh", fakeText)
	spec := logSpec(t, filepath.Join(dir, "log"))
	spec.Category = runner.CategoryStyle
	spec.CategoryMap = map[string]runner.Category{"E": runner.CategoryErrorProne, "N": runner.CategoryRefactor, "N4": runner.CategoryPerformance}
	res, err := newLinter(t, spec).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]runner.Category{}
	for _, a := range res.Alerts {
		got[a.Code] = a.Category
	}
	want := map[string]runner.Category{
		"E2": runner.CategoryErrorProne, "X1": runner.CategoryStyle,
		"I3": runner.CategoryStyle, "N4": runner.CategoryPerformance,
	}
	for code, c := range want {
		if got[code] != c {
			t.Errorf("category of %s = %q, want %q", code, got[code], c)
		}
	}
}

func TestCategoryFor(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		code string
		want runner.Category
	}{
		{"default", Spec{}, "X1", runner.CategoryOther},
		{"spec category", Spec{Category: runner.CategoryStyle}, "X1", runner.CategoryStyle},
		{"prefix", Spec{CategoryMap: map[string]runner.Category{"SC2": runner.CategoryErrorProne}}, "SC2086", runner.CategoryErrorProne},
		{"longest prefix wins", Spec{CategoryMap: map[string]runner.Category{"S": runner.CategoryStyle, "SC20": runner.CategoryRefactor, "SC2": runner.CategoryErrorProne}}, "SC2086", runner.CategoryRefactor},
		{"no prefix falls back", Spec{Category: runner.CategoryStyle, CategoryMap: map[string]runner.Category{"E": runner.CategoryErrorProne}}, "W1", runner.CategoryStyle},
		{"empty key matches all", Spec{Category: runner.CategoryStyle, CategoryMap: map[string]runner.Category{"": runner.CategoryRefactor}}, "", runner.CategoryRefactor},
	}
	for _, tt := range tests {
		if got := tt.spec.category(tt.code); got != tt.want {
			t.Errorf("%s: category(%q) = %q, want %q", tt.name, tt.code, got, tt.want)
		}
	}
}

func TestApplies(t *testing.T) {
	l := newLinter(t, Spec{Name: "x", Command: []string{"x"}, Extensions: []string{".sh", ".bash", "Dockerfile"}, Errorformat: gccFormat})
	tests := []struct {
		file string
		want bool
	}{
		{"/w/a.sh", true},
		{"/w/A.SH", true},
		{"/w/b.bash", true},
		{"/w/Dockerfile", true},
		{"/w/a.py", false},
		{"/w/ash", false},
		{"/w/x.Dockerfile", false},
		{"/w/.sh", false},
	}
	for _, tt := range tests {
		if got := l.Applies(tt.file); got != tt.want {
			t.Errorf("Applies(%q) = %v, want %v", tt.file, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Spec{Name: "x", Command: []string{"x", "${file}"}, Extensions: []string{".x"}, Errorformat: []string{"%f:%l: %m"}}
	with := func(mod func(*Spec)) Spec {
		s := ok
		mod(&s)
		return s
	}
	tests := []struct {
		name string
		spec Spec
		want string // "" for valid
	}{
		{"valid", ok, ""},
		{"valid json", with(func(s *Spec) {
			s.Errorformat = nil
			s.JSON = &JSONMapping{Message: "m", SeverityMap: map[string]string{"2": "Error", "1": "info"}}
		}), ""},
		{"no name", with(func(s *Spec) { s.Name = " " }), "linter has no name"},
		{"no command", with(func(s *Spec) { s.Command = nil }), `linter "x": no command`},
		{"empty command", with(func(s *Spec) { s.Command = []string{""} }), "no command"},
		{"unknown placeholder", with(func(s *Spec) { s.Command = []string{"x", "${fiel}"} }), "unknown placeholder ${fiel}"},
		{"no extensions", with(func(s *Spec) { s.Extensions = nil }), "no extensions"},
		{"empty extension", with(func(s *Spec) { s.Extensions = []string{"."} }), "empty extension"},
		{"neither format", with(func(s *Spec) { s.Errorformat = nil }), "set either errorformat or json"},
		{"both formats", with(func(s *Spec) { s.JSON = &JSONMapping{Message: "m"} }), "not both"},
		{"bad errorformat", with(func(s *Spec) { s.Errorformat = []string{"%f:%l:%Y %m"} }), `bad errorformat pattern "%f:%l:%Y %m": E376`},
		{"bad errorformat bracket", with(func(s *Spec) { s.Errorformat = []string{"%f:%*[abc"} }), "E374"},
		{"json without message", with(func(s *Spec) { s.Errorformat = nil; s.JSON = &JSONMapping{Line: "l"} }), "json: no message path"},
		{"bad severity map", with(func(s *Spec) {
			s.Errorformat = nil
			s.JSON = &JSONMapping{Message: "m", SeverityMap: map[string]string{"3": "fatal"}}
		}), `severity map: "3"`},
		{"bad code pattern", with(func(s *Spec) { s.CodePattern = "([" }), "bad code pattern"},
		{"unknown input", with(func(s *Spec) { s.Input = "pipe" }), `unknown input "pipe"`},
		{"unknown output", with(func(s *Spec) { s.Output = "stdlog" }), `unknown output "stdlog"`},
		{"unknown column unit", with(func(s *Spec) { s.ColumnUnit = 7 }), "unknown column unit 7"},
		{"bad env", with(func(s *Spec) { s.Env = []string{"NOVALUE"} }), `environment entry "NOVALUE"`},
		{"negative timeout", with(func(s *Spec) { s.Timeout = -time.Second }), "negative timeout"},
		{"negative debounce", with(func(s *Spec) { s.Debounce = -time.Second }), "negative debounce"},
		{"bad exit code", with(func(s *Spec) { s.ExitCodes = []int{256} }), "exit code 256 out of range"},
		{"bad category", with(func(s *Spec) { s.Category = "Pretty" }), `unknown category "Pretty"`},
		{"bad category map", with(func(s *Spec) { s.CategoryMap = map[string]runner.Category{"E": "Bad"} }), `category map: "E": unknown category "Bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if _, err := New(tt.spec, nil); err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.want)
			}
			if _, nerr := New(tt.spec, nil); nerr == nil {
				t.Error("New accepted an invalid spec")
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		spec      Spec
		wantInput string
	}{
		{Spec{Command: []string{"x", "-"}}, InputStdin},
		{Spec{Command: []string{"x", "--stdin-filename=${file}"}}, InputTempFile},
		{Spec{Command: []string{"x", "${file}"}, Input: InputStdin}, InputStdin},
		{Spec{Command: []string{"x", "${name}"}, Input: InputFile}, InputFile},
	}
	for _, tt := range tests {
		if got := tt.spec.input(); got != tt.wantInput {
			t.Errorf("%q: input() = %q, want %q", tt.spec.Command, got, tt.wantInput)
		}
	}
	var s Spec
	if s.timeout() != DefaultTimeout || !s.exitOK(0) || !s.exitOK(1) || s.exitOK(2) {
		t.Error("default timeout or exit codes are wrong")
	}
}

func TestParseColumnUnit(t *testing.T) {
	tests := []struct {
		in   string
		want runner.ColumnUnit
		ok   bool
	}{
		{"", runner.ColumnBytes, true},
		{"bytes", runner.ColumnBytes, true},
		{"Runes", runner.ColumnRunes, true},
		{"utf16", runner.ColumnUTF16, true},
		{"words", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseColumnUnit(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseColumnUnit(%q) = %v, %v", tt.in, got, err)
		}
	}
}

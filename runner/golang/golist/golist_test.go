package golist

import (
	"context"
	"errors"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	Serve()
	os.Exit(m.Run())
}

// mode is the analyzer's load mode (runner/golang's loadMode).
const mode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypesSizes |
	packages.NeedModule | packages.NeedForTest

// writeModule writes files (relative path -> text) into a new module
// directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summary describes a loaded graph: every package reachable from the
// roots with what the analyzer reads of it.
func summary(roots []*packages.Package) []string {
	var out []string
	for _, r := range roots {
		out = append(out, "root "+r.ID)
	}
	packages.Visit(roots, nil, func(p *packages.Package) {
		var imports []string
		for path, ip := range p.Imports {
			imports = append(imports, path+"="+ip.ID)
		}
		slices.Sort(imports)
		mod := ""
		if p.Module != nil {
			mod = p.Module.Path + "@" + p.Module.Version + " go" + p.Module.GoVersion
		}
		var errs []string
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		sizes := "nil"
		if p.TypesSizes != nil {
			sizes = "word " + strings.Repeat("x", int(p.TypesSizes.Sizeof(types.Typ[types.Int])))
		}
		out = append(out, strings.Join([]string{p.ID, p.Name, p.PkgPath, p.ForTest, mod, sizes,
			strings.Join(p.GoFiles, ","), strings.Join(compiledNames(p), ","), strings.Join(p.OtherFiles, ","),
			strings.Join(p.IgnoredFiles, ","), strings.Join(imports, ","), strings.Join(errs, ";")}, " | "))
	})
	return out
}

// compiledNames are the base names of CompiledGoFiles: cgo's output lands
// in the build cache under a name of each load's own.
func compiledNames(p *packages.Package) []string {
	var out []string
	for _, f := range p.CompiledGoFiles {
		if slices.Contains(p.GoFiles, f) {
			out = append(out, f)
		} else {
			out = append(out, "(generated)")
		}
	}
	return out
}

// TestLoadMatchesInProcess: a confined load gives the graph an in-process
// packages.Load gives, test variants, modules, cgo and errors included.
func TestLoadMatchesInProcess(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	tests := []struct {
		name     string
		files    map[string]string
		overlay  map[string]string
		patterns []string
	}{
		{
			name: "tests and external tests",
			files: map[string]string{
				"p/p.go":      "package p\n\nimport \"example.com/m/q\"\n\nfunc P() int { return q.Q() }\n",
				"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) { _ = P() }\n",
				"p/x_test.go": "package p_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/p\"\n)\n\nfunc TestX(t *testing.T) { _ = p.P() }\n",
				"q/q.go":      "package q\n\nimport \"strings\"\n\nfunc Q() int { return len(strings.Repeat(\"a\", 2)) }\n",
				"q/q_test.go": "package q\n\nimport \"testing\"\n\nfunc TestQ(t *testing.T) {}\n",
			},
			patterns: []string{"./..."},
		},
		{
			name:     "cgo",
			files:    map[string]string{"c/c.go": "package c\n\n// int two(void) { return 2; }\nimport \"C\"\n\nfunc Two() int { return int(C.two()) }\n"},
			patterns: []string{"./c"},
		},
		{
			name:     "overlay and errors",
			files:    map[string]string{"o/o.go": "package o\n"},
			overlay:  map[string]string{"o/o.go": "package o\n\nimport \"example.com/m/missing\"\n\nvar _ = missing.X\n"},
			patterns: []string{"./o"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t, tt.files)
			overlay := map[string][]byte{}
			for name, text := range tt.overlay {
				overlay[filepath.Join(dir, name)] = []byte(text)
			}
			cfg := func() *packages.Config {
				return &packages.Config{Mode: mode, Dir: dir, Tests: true, Overlay: overlay}
			}
			want, err := packages.Load(cfg(), tt.patterns...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Load(context.Background(), cfg(), tt.patterns...)
			if err != nil {
				t.Fatal(err)
			}
			w, g := summary(want), summary(got)
			if !slices.Equal(w, g) {
				t.Errorf("confined load differs from packages.Load:\ngot:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
		})
	}
}

// TestLoadCgoInclude: a cgo preamble that includes a host file, with the
// #define that makes gcc quote each of its lines, reads nothing of the host
// in a confined load, also under sandbox: none; loaded in this process
// (the control), it does. An include of /dev/zero ends at the load's
// memory limit, not in this process.
func TestLoadCgoInclude(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	secretDir := t.TempDir()
	canary := "CANARY-AWS-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	creds := filepath.Join(secretDir, "credentials")
	if err := os.WriteFile(creds, []byte("[default]\naws_secret_access_key = "+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cgo := func(include string) string {
		return "package c\n\n/*\n#define aws_secret_access_key ; char *b =\nvoid leak(void) {\n#include \"" + include + "\"\n}\n*/\nimport \"C\"\n\nfunc F() { C.leak() }\n"
	}
	tests := []struct {
		name       string
		include    string
		unconfined bool // sandbox: none
		inProcess  bool // packages.Load, not Load
		wantLeak   bool
		want       string // what the errors must say
	}{
		{name: "host file", include: creds, want: "No such file or directory"},
		{name: "host file under sandbox none", include: creds, unconfined: true, want: "No such file or directory"},
		{name: "host file in process (control)", include: creds, inProcess: true, wantLeak: true, want: "aws_secret_access_key"},
		{name: "dev zero", include: "/dev/zero", want: "memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"c/c.go": "package c\n"})
			file := filepath.Join(dir, "c", "c.go")
			ctx := context.Background()
			if tt.unconfined {
				ctx = sandbox.Unconfined(ctx)
			}
			cfg := &packages.Config{Mode: mode, Dir: filepath.Dir(file), Tests: true, Overlay: map[string][]byte{file: []byte(cgo(tt.include))}}
			load := Load
			if tt.inProcess {
				load = func(_ context.Context, cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
					return packages.Load(cfg, patterns...)
				}
			}
			pkgs, err := load(ctx, cfg, ".")
			var text strings.Builder
			if err != nil {
				text.WriteString(err.Error())
			}
			packages.Visit(pkgs, nil, func(p *packages.Package) {
				for _, e := range p.Errors {
					text.WriteString(e.Error() + "\n")
				}
			})
			t.Logf("what the load said:\n%.2000s", text.String())
			if leaked := strings.Contains(text.String(), canary); leaked != tt.wantLeak {
				t.Errorf("the load's errors hold the host file's secret: %t, want %t", leaked, tt.wantLeak)
			}
			if !strings.Contains(text.String(), tt.want) {
				t.Errorf("the load's errors do not say %q", tt.want)
			}
		})
	}
}

// TestLoadNeedsServe: an executable that does not call Serve cannot load
// confined, and Load says so rather than loading in its own process.
func TestLoadNeedsServe(t *testing.T) {
	served.Store(false)
	defer served.Store(true)
	dir := writeModule(t, map[string]string{"p.go": "package m\n"})
	_, err := Load(context.Background(), &packages.Config{Mode: mode, Dir: dir}, ".")
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Load without Serve: %v, want ErrNoDriver", err)
	}
}

// TestAnswered: a complete answer counts even when a process under go
// list (the C compiler on a cgo preamble that #includes /dev/zero) was
// killed at the memory cap; a run that was itself stopped, or whose answer
// is cut or missing, is an error that says which limit it met.
func TestAnswered(t *testing.T) {
	whole := magic + "{}"
	tests := []struct {
		name string
		res  sandbox.Result
		want string // "" = no error
	}{
		{"whole", sandbox.Result{Stdout: whole, StdoutBytes: len(whole)}, ""},
		{"a child killed at the memory cap", sandbox.Result{Stdout: whole, StdoutBytes: len(whole), MemoryExceeded: true}, ""},
		{"go list killed at the memory cap", sandbox.Result{ExitCode: -1, Signal: "killed", MemoryExceeded: true}, "memory limit"},
		{"time limit", sandbox.Result{ExitCode: -1, Signal: "killed", TimedOut: true, CPUExceeded: true, Stdout: whole, StdoutBytes: len(whole)}, "time limit"},
		{"cut", sandbox.Result{Stdout: whole, StdoutBytes: OutputLimit + 1}, "larger than"},
		{"no magic", sandbox.Result{Stdout: "{}", StdoutBytes: 2}, "failed"},
		{"exit 1", sandbox.Result{ExitCode: 1, Stdout: whole, StdoutBytes: len(whole), Stderr: "boom"}, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answered(&tt.res)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("answered = %v, want no error", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("answered = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestNoteMemory: when the kernel killed a process of go list's at the
// memory cap (cc1 on a cgo preamble that includes /dev/zero), the packages
// with errors say so, the others stay as they are.
func TestNoteMemory(t *testing.T) {
	broken := &packages.Package{ID: "b", Errors: []packages.Error{{Pos: "p.go:1:1", Msg: "gcc: fatal error: Killed signal terminated program cc1"}}}
	fine := &packages.Package{ID: "f", Imports: map[string]*packages.Package{"b": broken}}
	noteMemory([]*packages.Package{fine})
	if len(fine.Errors) != 0 {
		t.Errorf("a package without errors got %v", fine.Errors)
	}
	if len(broken.Errors) != 2 || !strings.Contains(broken.Errors[1].Msg, "memory limit") || broken.Errors[1].Pos != "p.go:1:1" {
		t.Errorf("errors %+v", broken.Errors)
	}
}

//go:build unix

package python

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestLintToolsAreConfined: pylint and flake8 run in the sandbox. No
// Python text makes them print a file it names (they parse the text and
// the modules its imports find, and quote no module's lines), so fakes
// stand in for them: each prints a secret outside the project as a finding
// and tries to write outside its directory and into the file's own
// directory, which it may read but not write. None of it gets done.
func TestLintToolsAreConfined(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	canary := fmt.Sprintf("fixloop-canary-%d", time.Now().UnixNano())
	secret := filepath.Join(base, "home", "secret.txt")
	outside := filepath.Join(base, "outside")
	project := filepath.Join(base, "project")
	writeFiles(t, base, map[string]string{"home/secret.txt": canary + "\n", "project/mod.py": "x = 1\n"})
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	steal := `msg=$(cat ` + secret + ` 2>&1 | head -n 1 | tr -d '"\\')
echo pwned > ` + outside + `/$(basename "$0")
echo pwned > "$PWD/written-by-$(basename "$0")"
[ -r mod.py ] || msg="$msg; mod.py unreadable in $PWD"
`
	badinput.FakeTools(t, map[string]string{
		Pylint: steal + `printf '[{"type": "warning", "line": 1, "column": 0, "path": "<stdin>", "symbol": "fake", "message": "%s", "message-id": "W9999"}]\n' "$msg"; exit 4`,
		Flake8: steal + `printf '1:1:X999:%s\n' "$msg"; exit 1`,
	})
	file := filepath.Join(project, "mod.py")
	before := snapshot(t, project)
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{Pylint, Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("x = 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{SourcePylint, SourceFlake8} {
		var found *runner.Alert
		for i := range res.Alerts {
			if res.Alerts[i].Source == source {
				found = &res.Alerts[i]
			}
		}
		switch {
		case found == nil:
			t.Errorf("no %s alert (the fake did not run?): %+v", source, res.Alerts)
		case strings.Contains(found.Message, canary):
			t.Errorf("%s's alert holds the secret: %q", source, found.Message)
		case !strings.Contains(found.Message, "No such file or directory") || strings.Contains(found.Message, "unreadable"):
			t.Errorf("%s's alert %q: want the secret missing and the project readable", source, found.Message)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("the tools wrote outside their directory: %v", entries)
	}
	sameSnapshot(t, before, snapshot(t, project))
}

// TestLintSeesConfigurationAbove: flake8 finds the configuration of a
// directory above the repository (it looks up from the file's directory),
// confined too: the sandbox is shown the configuration files above the
// file.
func TestLintSeesConfigurationAbove(t *testing.T) {
	requireTools(t, Flake8)
	base := t.TempDir()
	long := "x = '" + strings.Repeat("a", 90) + "'\n"
	writeFiles(t, base, map[string]string{
		"setup.cfg":               "[flake8]\nmax-line-length = 120\n",
		"repo/.git/HEAD":          "ref: refs/heads/main\n",
		"repo/pkg/mod.py":         long,
		"elsewhere/ignored/x.txt": "not shown\n",
	})
	file := filepath.Join(base, "repo", "pkg", "mod.py")
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		t.Errorf("alert %s:%s %s, want none: setup.cfg allows 120 columns", a.Source, a.Code, a.Message)
	}
}

// TestWarmWorkerIsConfined: the warm worker runs in the sandbox too. A
// project's pylintrc runs code in the worker (init-hook); it can neither
// read a file outside the project nor write outside the worker's scratch
// directory, the project's directory included.
func TestWarmWorkerIsConfined(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	requireWarm(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	base := t.TempDir()
	secret := filepath.Join(base, "home", "secret.txt")
	outside := filepath.Join(base, "outside")
	project := filepath.Join(base, "project")
	file := filepath.Join(project, "mod.py")
	body := fmt.Sprintf(`for p in (%q, %q):
    try:
        open(p, "w").write("pwned")
        r.append("wrote " + p)
    except OSError:
        pass
try:
    open(%q).read()
    r.append("read the secret")
except OSError:
    pass
`, filepath.Join(outside, "pwned"), filepath.Join(project, "pwned"), secret)
	hook := fmt.Sprintf(`import sys; r = ["hook ran"]; exec(compile(%q, "hook", "exec"), {"r": r}); sys.__stderr__.write("; ".join(r)); sys.__stderr__.flush()`, body)
	writeFiles(t, base, map[string]string{
		"home/secret.txt": "secret\n", "project/mod.py": "x = 1\n", "outside/keep": "",
		"project/.pylintrc": "[MAIN]\ninit-hook=" + hook + "\n",
	})
	before := snapshot(t, project)
	l, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		if a.Source == "fixloop" {
			t.Errorf("note: %s", a.Message)
		}
	}
	ws := warmWorkers(pool)
	if len(ws) != 1 {
		t.Fatalf("%d warm workers, want 1 (did the worker run?)", len(ws))
	}
	got := ws[0].stderr.String()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(got, "hook ran") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // stderr is copied from a pipe
		got = ws[0].stderr.String()
	}
	if !strings.Contains(got, "hook ran") {
		t.Errorf("the init-hook did not run: the worker's stderr is %q", got)
	}
	if strings.Contains(got, "wrote") || strings.Contains(got, "read the secret") {
		t.Errorf("the worker's init-hook: %s", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Errorf("the worker wrote outside its directory")
	}
	sameSnapshot(t, before, snapshot(t, project))
}

// TestPyrightWarmIsConfined: the warm pyright server sees what the cold
// run sees and no more: a configuration's extraPaths outside the project
// finds nothing, and it writes nothing in the project.
func TestPyrightWarmIsConfined(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	base := t.TempDir()
	project := filepath.Join(base, "project")
	writeFiles(t, base, map[string]string{
		"outside/secretmod.py":       "VALUE: int = 1\n",
		"project/pyrightconfig.json": `{"extraPaths": ["../outside"]}`,
		"project/mod.py":             "import secretmod\nimport os\nprint(secretmod.VALUE, os.sep)\n",
	})
	before := snapshot(t, project)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm, _ := pyrightLinters(t, pool)
	res, err := warm.Lint(t.Context(), filepath.Join(project, "mod.py"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findAlert(res.Alerts, SourcePyright, "reportMissingImports", 1); !ok {
		t.Errorf("the server found a module outside its view: %v", keys(res.Alerts))
	}
	if len(pyrightServers(pool)) != 1 {
		t.Errorf("the check did not run warm")
	}
	sameSnapshot(t, before, snapshot(t, project))
}

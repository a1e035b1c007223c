package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// needRuff returns Ruff's WebAssembly build ($FIXLOOP_RUFF_WASM or the
// cache directory), skipping the test without it or without node, except
// in CI, which installs both (.ci/run sets FIXLOOP_RUFF_WASM): there the
// test fails.
func needRuff(t *testing.T) RuffWasm {
	t.Helper()
	r, err := FindRuffWasm()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must install %s (%s): %v", ruffWasmPackage, RuffWasmEnv, err)
		}
		t.Skip(err)
	}
	return r
}

// runRuff runs the Ruff fixer alone on text, the text of file.
func runRuff(t *testing.T, r RuffWasm, file, text string) string {
	t.Helper()
	got, err := runFieldFixer(context.Background(), fieldFixers["python"][0], r.command(file), text)
	if err != nil {
		t.Fatalf("ruff: %v", err)
	}
	return got
}

// TestRuffSafeFixes runs Ruff's WebAssembly build, confined where
// bubblewrap runs, on snippets with known fixes: the safe ones are applied
// (over several passes where one fix makes room for another), the unsafe
// ones are not, and a text that does not parse comes back as it was.
func TestRuffSafeFixes(t *testing.T) {
	t.Parallel()
	r := needRuff(t)
	if r.Version != RuffWasmVersion {
		t.Errorf("version %q, want %s", r.Version, RuffWasmVersion)
	}
	if c := sandbox.Probe(); !c.Confined {
		t.Logf("ruff runs unconfined here: %s", c)
	}
	tests := []struct {
		name, file, text, want string
	}{
		{"F401 unused import", "a.py", "import os\nimport sys\n\nprint(sys.argv)\n", "import sys\n\nprint(sys.argv)\n"},
		{"F401 one name of several", "a.py", "from os import path, sep\n\nprint(sep)\n", "from os import sep\n\nprint(sep)\n"},
		{"F401 nested imports, one a pass", "a.py", "def f():\n    import os\n    import re\n    return 1\n", "def f():\n    return 1\n"},
		{"E713 not in", "a.py", "def f(x, y):\n    return not x in y\n", "def f(x, y):\n    return x not in y\n"},
		{"E714 is not", "a.py", "def f(x):\n    return not x is None\n", "def f(x):\n    return x is not None\n"},
		{"E703 semicolon, after non-BMP text", "a.py", "s = \"😀é\";\nprint(s)\n", "s = \"😀é\"\nprint(s)\n"},
		{"F541 f-string without placeholders", "a.py", "print(f\"hi\")\n", "print(\"hi\")\n"},
		{"F632 is with a literal", "a.py", "def f(x):\n    return x is \"a\"\n", "def f(x):\n    return x == \"a\"\n"},
		{"F811 redefined import", "a.py", "import os\nimport os\nprint(os)\n", "import os\nprint(os)\n"},
		{"F401 two names, one statement", "a.py", "import os, sys\nprint(1)\n", "print(1)\n"},
		{"F401 the only statements of blocks", "a.py", "if True:\n    import os\nelse:\n    import sys\n", "if True:\n    pass\nelse:\n    pass\n"},
		{"CRLF line ends kept", "a.py", "import os\r\nx = 1;\r\n", "x = 1\r\n"},
		// Unsafe fixes are Ruff's to offer, not to apply: E711, F841.
		{"E711 == None: unsafe", "a.py", "def f(x):\n    return x == None\n", "def f(x):\n    return x == None\n"},
		{"E731 lambda assignment: unsafe", "a.py", "f = lambda: 0\n", "f = lambda: 0\n"},
		{"F841 unused variable: unsafe", "a.py", "def f():\n    y = 1\n    return 2\n", "def f():\n    y = 1\n    return 2\n"},
		// In a package's __init__.py an unused import may be its interface.
		{"F401 in __init__.py: unsafe", "/p/pkg/__init__.py", "import os\n", "import os\n"},
		{"syntax error: unchanged", "a.py", "import os\ndef f(:\n    pass\n", "import os\ndef f(:\n    pass\n"},
		{"clean", "a.py", "x = 1\n", "x = 1\n"},
		{"empty", "a.py", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := runRuff(t, r, tt.file, tt.text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestProviderRunsRuffThenAutopep8: for Python the rules provider runs Ruff,
// then autopep8 where it is installed.
func TestProviderRunsRuffThenAutopep8(t *testing.T) {
	t.Parallel()
	needRuff(t)
	want, fixers := "```python\nx = 1\nif x == 1:\n    print(x)\n```\n", "ruff, autopep8"
	if _, err := exec.LookPath("autopep8"); err != nil {
		want, fixers = "```python\nx=1\nif x==1 :\n    print( x )\n```\n", "ruff"
	}
	if got := FieldFixer("python"); got != fixers {
		t.Errorf("FieldFixer(python) = %q, want %q", got, fixers)
	}
	reply, err := New().Complete(context.Background(), model.Request{
		Round: 1, File: "/p/a.py", Language: "python",
		Text: "import os\nx=1\nif x==1 :\n    print( x )\n",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != want {
		t.Errorf("answer %q, want %q", reply.Content, want)
	}
}

// TestRuffOnPythonExample: on fixloop's Python example, where autopep8
// changes nothing, Ruff removes the unused import and leaves the unsafe
// fixes (== None, the unused variable) to a model.
func TestRuffOnPythonExample(t *testing.T) {
	t.Parallel()
	r := needRuff(t)
	file, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "pyexample", "stats.py"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	want := strings.Replace(text, "import math\nimport os\n", "import math\n", 1)
	if want == text {
		t.Fatal("the example no longer imports os unused")
	}
	if got := runRuff(t, r, file, text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRuffMissing: without the package, or without node, FieldFixer names
// no Ruff, the provider runs without it, and check --tools says what is
// wrong and how to install it.
func TestRuffMissing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache")) // no package in the default place
	t.Setenv("HOME", home)
	empty := t.TempDir()
	tests := []struct {
		name, env, path string
		missing         bool
		message         string
	}{
		{"nothing installed", "", os.Getenv("PATH"), true, "ruff is not installed (looked for " + filepath.Join(home, "cache", "fixloop", "ruff-wasm-"+RuffWasmVersion, ruffWasmModule) + ")"},
		{"the setting names no package", empty, os.Getenv("PATH"), false, RuffWasmEnv + "=" + empty + " holds no ruff_wasm.js"},
		{"no node", fakeRuffPackage(t), empty, true, "needs node: node is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RuffWasmEnv, tt.env)
			t.Setenv("PATH", tt.path)
			if got := FieldFixer("python"); strings.Contains(got, "ruff") {
				t.Errorf("FieldFixer(python) = %q, want no ruff", got)
			}
			st := toolEntry(t, "ruff")
			if st.Err == nil || !strings.Contains(st.Err.Error(), tt.message) || st.Path != "" || tool.IsMissing(st.Err) != tt.missing {
				t.Errorf("tools entry %+v, want an error with %q (missing: %v)", st, tt.message, tt.missing)
			}
			if !strings.Contains(st.Tool.Install, "npm install --ignore-scripts --no-audit --no-fund --prefix DIR @astral-sh/ruff-wasm-nodejs@"+RuffWasmVersion) {
				t.Errorf("install %q", st.Tool.Install)
			}
			// A session that ends with no fix says what is not installed.
			want := "the rules provider has no fix for these 2 alerts; a model is needed"
			if tt.missing {
				want += ". " + st.Err.Error()
			}
			if got := New().NoFix("python", 2); got != want {
				t.Errorf("NoFix = %q, want %q", got, want)
			}
			reply, err := New().Complete(context.Background(), model.Request{Round: 1, File: "/p/a.py", Language: "python", Text: "x = 1\n"}, nil)
			if err != nil || reply.Content != "```python\nx = 1\n```\n" {
				t.Errorf("reply %q, %v", reply.Content, err)
			}
		})
	}
}

// fakeRuffPackage returns an npm prefix holding a package that looks like
// @astral-sh/ruff-wasm-nodejs (never run).
func fakeRuffPackage(t *testing.T) string {
	t.Helper()
	prefix := t.TempDir()
	dir := filepath.Join(prefix, filepath.FromSlash(ruffWasmModule))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"package.json": `{"name": "@astral-sh/ruff-wasm-nodejs", "version": "` + RuffWasmVersion + `"}`,
		"ruff_wasm.js": "throw new Error('not run')\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

// TestRuffFixAlone: RuffFix applies Ruff's safe fixes and nothing else
// (autopep8's spacing stays).
func TestRuffFixAlone(t *testing.T) {
	t.Parallel()
	needRuff(t)
	got, err := RuffFix(context.Background(), "/p/a.py", "import os\nx=1\nif x==1 :\n    print( x )\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "x=1\nif x==1 :\n    print( x )\n"; got != want {
		t.Errorf("RuffFix = %q, want %q", got, want)
	}
}

package rules

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fixloop/fixloop/runner/tool"
)

// RuffWasmEnv names the directory of npm's @astral-sh/ruff-wasm-nodejs
// package (DIR/node_modules/@astral-sh/ruff-wasm-nodejs, or the npm prefix
// DIR itself), Ruff's WebAssembly build for Node, which the rules provider
// runs for Python before autopep8. Without it the package is looked for
// where .ci/run installs it, under the user's cache directory
// (~/.cache/fixloop/ruff-wasm-0.17.4).
const RuffWasmEnv = "FIXLOOP_RUFF_WASM"

// RuffWasmVersion is the version of @astral-sh/ruff-wasm-nodejs (and of
// Ruff) fixloop is tested with.
const RuffWasmVersion = "0.17.4"

// ruffWasmPackage is the npm package, and ruffWasmModule the path of its
// directory under an npm prefix.
const (
	ruffWasmPackage = "@astral-sh/ruff-wasm-nodejs"
	ruffWasmModule  = "node_modules/" + ruffWasmPackage
)

// ruffInstall is how to install Ruff's WebAssembly build; it runs with the
// system's node.
const ruffInstall = "npm install --ignore-scripts --no-audit --no-fund --prefix DIR " + ruffWasmPackage + "@" + RuffWasmVersion +
	", then set " + RuffWasmEnv + " to DIR/" + ruffWasmModule + " (or use DIR = ~/.cache/fixloop/ruff-wasm-" + RuffWasmVersion + "); it runs with node on PATH"

// ruffScript is the Node program that applies Ruff's safe fixes to the
// text on its standard input (`ruff check --fix` with Ruff's default rules,
// E4, E7, E9 and F); see its opening comment.
//
//go:embed ruff_fix.js
var ruffScript string

// ruffNodeFlags keep V8 from optimising Ruff's 10 MB of WebAssembly in the
// background: compiling it once with the baseline compiler (Liftoff) takes
// a tenth of a second, optimising it seconds of CPU and 400 MB.
var ruffNodeFlags = []string{"--liftoff-only"}

var nodeTool = tool.Tool{
	Name: "node", Commands: []string{"node"},
	Package: "Debian package nodejs", Install: "apt install nodejs",
}

// ruffTool describes Ruff's WebAssembly build where it is looked for by
// default (Commands holds that directory).
func ruffTool() tool.Tool {
	return tool.Tool{
		Name: "ruff", Language: "python", Commands: []string{defaultRuffWasmDir()},
		Package: "npm package " + ruffWasmPackage + "@" + RuffWasmVersion + " (Ruff " + RuffWasmVersion + "'s WebAssembly build, the rules provider's first Python fixer, run with node)",
		Install: ruffInstall,
	}
}

// defaultRuffWasmDir is where .ci/run installs the package:
// $XDG_CACHE_HOME/fixloop/ruff-wasm-VERSION/node_modules/@astral-sh/ruff-wasm-nodejs.
func defaultRuffWasmDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join("~", ".cache", "fixloop", "ruff-wasm-"+RuffWasmVersion, ruffWasmModule)
	}
	return filepath.Join(cache, "fixloop", "ruff-wasm-"+RuffWasmVersion, ruffWasmModule)
}

// RuffWasm is a Ruff WebAssembly build that FindRuffWasm found: the
// package's directory and the node that runs it.
type RuffWasm struct {
	// Dir is the package's directory (free of symlinks), Node the node
	// program (free of symlinks).
	Dir, Node string
	// Version is the package's version, from its package.json.
	Version string
}

// FindRuffWasm returns the Ruff the rules provider runs for Python: the
// package $FIXLOOP_RUFF_WASM names, else the one in the cache directory
// (see RuffWasmEnv), run with node from PATH; or an error saying what is
// wrong (a *tool.MissingError when the package or node is not installed).
func FindRuffWasm() (RuffWasm, error) {
	dir, setting := os.Getenv(RuffWasmEnv), true
	if dir == "" {
		dir, setting = defaultRuffWasmDir(), false
	}
	if _, err := os.Stat(filepath.Join(dir, "ruff_wasm.js")); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, ruffWasmModule, "ruff_wasm.js")); err2 == nil {
			dir = filepath.Join(dir, ruffWasmModule) // the npm prefix
		} else if setting {
			return RuffWasm{}, fmt.Errorf("%s=%s holds no ruff_wasm.js (%w); %s", RuffWasmEnv, dir, err, ruffInstall)
		} else {
			return RuffWasm{}, &tool.MissingError{Tool: ruffTool()}
		}
	}
	real, err := realPath(dir)
	if err != nil {
		return RuffWasm{}, fmt.Errorf("finding %s: %w", ruffWasmPackage, err)
	}
	var pkg struct {
		Name, Version string
	}
	data, err := os.ReadFile(filepath.Join(real, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil || pkg.Name != ruffWasmPackage {
		return RuffWasm{}, fmt.Errorf("%s is not npm's %s (package.json: %v, name %q)", real, ruffWasmPackage, err, pkg.Name)
	}
	node, err := nodeTool.Find()
	if err != nil {
		return RuffWasm{}, fmt.Errorf("ruff (%s) needs node: %w", real, err)
	}
	if node, err = realPath(node); err != nil {
		return RuffWasm{}, fmt.Errorf("finding node: %w", err)
	}
	return RuffWasm{Dir: real, Node: node, Version: pkg.Version}, nil
}

// command returns how to run ruff_fix.js on the text of file: node with
// the script, the package's directory shown read-only.
func (r RuffWasm) command(file string) fixerCommand {
	args := append(append([]string(nil), ruffNodeFlags...), "-e", ruffScript, r.Dir)
	if filepath.Base(file) == "__init__.py" {
		args = append(args, "--init")
	}
	return fixerCommand{path: r.Node, args: args, readOnly: []string{r.Dir}, env: []string{"NODE_OPTIONS="}}
}

func findRuffCommand(file string) (fixerCommand, error) {
	r, err := FindRuffWasm()
	if err != nil {
		return fixerCommand{}, err
	}
	return r.command(file), nil
}

// ruffStatus is what `fixloop check --tools` lists of Ruff.
func ruffStatus() tool.Status {
	st := tool.Status{Tool: ruffTool()}
	r, err := FindRuffWasm()
	if err != nil {
		st.Err = err
		return st
	}
	st.Path, st.Version = r.Dir, "ruff "+r.Version+" (WebAssembly)"
	return st
}

// RuffFix applies Ruff's safe fixes to text, the text of file, once and
// nothing else, confined as the rules provider runs it: `ruff check --fix`
// run directly, the baseline LintEval's rule-based row is measured
// against.
func RuffFix(ctx context.Context, file, text string) (string, error) {
	for _, f := range fieldFixers["python"] {
		if f.name != "ruff" {
			continue
		}
		fc, err := f.find(file)
		if err != nil {
			return "", err
		}
		return runFieldFixer(ctx, f, fc, text)
	}
	return "", fmt.Errorf("rules: no Ruff fixer")
}

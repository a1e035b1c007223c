package rules

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// A fieldFixer is a language's own fixing tool, which the rules provider
// runs after the linters' suggested fixes, as LintEval's rule-based
// baselines do: it reads the text on stdin and prints the fixed text.
type fieldFixer struct {
	name string
	// find returns how to run the fixer on the text of file, or an error
	// when it is not installed (or its setting names no usable file).
	find func(file string) (fixerCommand, error)
	// parseError reports whether a failed run's standard error says the
	// text does not parse: the text is then left as it is, as autopep8
	// leaves what it cannot tokenize, and the linters' fixes stand alone.
	parseError func(stderr string) bool
}

// fixerCommand is how to run a field fixer: the program, its arguments,
// what else the sandbox must show read-only, and the environment it adds.
type fixerCommand struct {
	path     string
	args     []string
	readOnly []string
	env      []string
}

// fieldFixers are the fixers by language, run in order on the text, each
// one that is installed. C++ has clang-tidy's own fixes already (its
// --export-fixes replacements are the linters' suggested fixes).
var fieldFixers = map[string][]fieldFixer{
	"python": {
		// Ruff's safe fixes for its default rules (E4, E7, E9, F: pyflakes
		// and pycodestyle's errors), as `ruff check --fix` applies them:
		// LintEval's rule-based baseline for Python.
		{name: "ruff", find: findRuffCommand},
		// autopep8 fixes what pycodestyle reports (flake8's E and W codes).
		{name: "autopep8", find: findAutopep8},
	},
	// google-java-format formats the file as Google's Java style says
	// (what checkstyle's google checks report) and sorts and prunes the
	// imports.
	"java": {{name: "google-java-format", find: findJavaFormatCommand, parseError: javaFormatParseError}},
}

func findAutopep8(string) (fixerCommand, error) {
	path, err := exec.LookPath("autopep8")
	if err != nil {
		return fixerCommand{}, err
	}
	return fixerCommand{path: path, args: []string{"-"}}, nil
}

// FieldFixer names the fixing tools the rules provider runs for language
// that are installed, in the order it runs them: "ruff, autopep8" for
// Python (see FindRuffWasm), "google-java-format" for Java (see
// FindGoogleJavaFormat); "" for none.
func FieldFixer(language string) string {
	var names []string
	for _, f := range fieldFixers[language] {
		if _, err := f.find(""); err == nil {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, ", ")
}

// fixerTimeout bounds one run of a field fixer.
const fixerTimeout = 30 * time.Second

// maxFixerOutput bounds what a field fixer may print.
const maxFixerOutput = 16 << 20

// runFieldFixers runs language's fixers in turn on text, the text of
// file, each confined like the linters (sandbox.ConfineTool: no network,
// nothing writable but a scratch directory). A fixer that is not installed
// is passed over, and one that says the text does not parse (a Java
// candidate with a syntax error) leaves it as it was.
func runFieldFixers(ctx context.Context, language, file, text string) (string, error) {
	for _, f := range fieldFixers[language] {
		fc, err := f.find(file)
		if err != nil {
			continue
		}
		if text, err = runFieldFixer(ctx, f, fc, text); err != nil {
			return "", err
		}
	}
	return text, nil
}

// runFieldFixer runs one fixer, as fc says, on text.
func runFieldFixer(ctx context.Context, f fieldFixer, fc fixerCommand, text string) (string, error) {
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, fixerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, fc.path, fc.args...)
	// The fixer's working directory is the one place it may write: a
	// scratch directory of its own, not the shared temporary directory.
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixFixer))
	if err != nil {
		return "", fmt.Errorf("rules: running %s: %w", f.name, err)
	}
	defer os.RemoveAll(scratch)
	cmd.Dir = scratch
	if err := sandbox.ConfineTool(cmd, fc.env, fc.readOnly...); err != nil {
		return "", fmt.Errorf("rules: running %s: %w", f.name, err)
	}
	stdout, stderr := proc.NewLimitedBuffer(maxFixerOutput), proc.NewLimitedBuffer(64<<10)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("rules: %s did not finish within %s", f.name, fixerTimeout)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) && f.parseError != nil && f.parseError(stderr.String()) {
			return text, nil
		}
		return "", fmt.Errorf("rules: %s failed (%v): %s", f.name, err, strings.TrimSpace(stderr.String()))
	}
	if stdout.Truncated() {
		return "", fmt.Errorf("rules: %s printed more than %d MiB", f.name, maxFixerOutput>>20)
	}
	return stdout.String(), nil
}

// GoogleJavaFormatEnv names google-java-format's all-deps jar, which the
// rules provider runs with java -jar, instead of a google-java-format on
// PATH.
const GoogleJavaFormatEnv = "FIXLOOP_GOOGLE_JAVA_FORMAT"

// googleJavaFormatInstall is how to install google-java-format 1.26.0, the
// last one that runs on Java 17 (npm google-java-format 2.0.3 and later
// bundle releases that need Java 21), without its npm install script.
const googleJavaFormatInstall = "npm install --ignore-scripts --no-audit --no-fund --prefix DIR google-java-format@2.0.2, then set " +
	GoogleJavaFormatEnv + " to DIR/node_modules/google-java-format/lib/google-java-format-1.26.0-all-deps.jar (or put DIR/node_modules/.bin on PATH); it runs with java 17 or later on PATH"

var googleJavaFormatTool = tool.Tool{
	Name: "google-java-format", Language: "java", Commands: []string{"google-java-format"},
	Package:  "npm package google-java-format@2.0.2 (google-java-format 1.26.0, the rules provider's Java fixer, run with the system's java)",
	Install:  googleJavaFormatInstall,
	Optional: "the rules provider's Java fixer",
}

var javaTool = tool.Tool{
	Name: "java", Language: "java", Commands: []string{"java"},
	Package: "Debian package default-jdk-headless", Install: "apt install default-jdk-headless",
}

// javaFormatJVMFlags start google-java-format's JVM quickly (one file to
// format), without writing its performance data under /tmp, reading and
// printing UTF-8.
var javaFormatJVMFlags = []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Dfile.encoding=UTF-8"}

// GoogleJavaFormat is a google-java-format that FindGoogleJavaFormat found:
// its all-deps jar, run with java, or an executable.
type GoogleJavaFormat struct {
	// Jar is the all-deps jar (free of symlinks) $FIXLOOP_GOOGLE_JAVA_FORMAT
	// names, and Java the java that runs it; both "" for an executable.
	Jar, Java string
	// Program is the google-java-format found on PATH (free of symlinks);
	// "" for a jar.
	Program string
}

// Path is what `fixloop check --tools` shows: the jar or the program.
func (g GoogleJavaFormat) Path() string {
	if g.Jar != "" {
		return g.Jar
	}
	return g.Program
}

// command returns the command line that runs google-java-format with
// args, and what the sandbox must show besides the program's directory:
// the jar, or for npm's launcher (node_modules/google-java-format/index.js)
// the node_modules directory that holds its dependencies and jar.
func (g GoogleJavaFormat) command(args ...string) fixerCommand {
	if g.Jar != "" {
		return fixerCommand{
			path:     g.Java,
			args:     append(append(append([]string(nil), javaFormatJVMFlags...), "-jar", g.Jar), args...),
			readOnly: []string{g.Jar},
		}
	}
	readOnly := []string{filepath.Dir(g.Program)}
	if mods := filepath.Dir(filepath.Dir(g.Program)); filepath.Base(mods) == "node_modules" {
		readOnly = append(readOnly, mods)
	}
	return fixerCommand{path: g.Program, args: args, readOnly: readOnly}
}

// FindGoogleJavaFormat returns the google-java-format the rules provider
// runs for Java: the jar $FIXLOOP_GOOGLE_JAVA_FORMAT names (a regular
// file, run with java from PATH), else google-java-format on PATH, or an
// error saying what is wrong (a *tool.MissingError when neither is there).
func FindGoogleJavaFormat() (GoogleJavaFormat, error) {
	if p := os.Getenv(GoogleJavaFormatEnv); p != "" {
		st, err := os.Stat(p)
		if err != nil {
			return GoogleJavaFormat{}, fmt.Errorf("%s=%s: %w; %s", GoogleJavaFormatEnv, p, err, googleJavaFormatInstall)
		}
		if !st.Mode().IsRegular() {
			return GoogleJavaFormat{}, fmt.Errorf("%s=%s is not a file; point it at google-java-format's all-deps jar", GoogleJavaFormatEnv, p)
		}
		jar, err := realPath(p)
		if err != nil {
			return GoogleJavaFormat{}, fmt.Errorf("%s=%s: %w", GoogleJavaFormatEnv, p, err)
		}
		java, err := javaTool.Find()
		if err != nil {
			return GoogleJavaFormat{}, fmt.Errorf("%s=%s needs java: %w", GoogleJavaFormatEnv, p, err)
		}
		return GoogleJavaFormat{Jar: jar, Java: java}, nil
	}
	p, err := googleJavaFormatTool.Find()
	if err != nil {
		return GoogleJavaFormat{}, err
	}
	// npm's node_modules/.bin/google-java-format is a symlink to its
	// launcher, which finds its jar and modules from its own path.
	prog, err := realPath(p)
	if err != nil {
		return GoogleJavaFormat{}, fmt.Errorf("finding google-java-format: %w", err)
	}
	return GoogleJavaFormat{Program: prog}, nil
}

// realPath returns p absolute and free of symlinks: the sandbox shows
// files at their real paths.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func findJavaFormatCommand(string) (fixerCommand, error) {
	g, err := FindGoogleJavaFormat()
	if err != nil {
		return fixerCommand{}, err
	}
	return g.command("-"), nil
}

// javaFormatParseError reports whether google-java-format's standard error
// holds a javac diagnostic about its input ("<stdin>:3:14: error: ';'
// expected"), as opposed to a crash of the tool.
func javaFormatParseError(stderr string) bool {
	for line := range strings.SplitSeq(stderr, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "<stdin>:"); ok && strings.Contains(rest, ": error: ") {
			return true
		}
	}
	return false
}

// Version runs google-java-format --version, unconfined, and returns
// "google-java-format 1.26.0", or "" when it cannot be read.
func (g GoogleJavaFormat) Version(ctx context.Context) string {
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return ""
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := g.command("--version")
	out, _ := proc.Command(ctx, "", c.path, c.args...).CombinedOutput()
	return parseJavaFormatVersion(string(out))
}

// parseJavaFormatVersion reads the "google-java-format: Version 1.26.0"
// line of google-java-format --version (npm's launcher prints its own
// line first).
func parseJavaFormatVersion(out string) string {
	for line := range strings.SplitSeq(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "google-java-format: Version "); ok {
			if v = strings.TrimSpace(v); v != "" {
				return "google-java-format " + v
			}
		}
	}
	return ""
}

// Tools is what `fixloop check --tools` lists of the rules provider's Java
// and Python fixers: google-java-format and Ruff, where each is and its
// version, or why it is missing and how to install it.
// (toolset.Discover lists autopep8 itself.)
func Tools(ctx context.Context) []tool.Status {
	st := tool.Status{Tool: googleJavaFormatTool}
	if g, err := FindGoogleJavaFormat(); err != nil {
		st.Err = err
	} else {
		st.Path, st.Version = g.Path(), g.Version(ctx)
	}
	return []tool.Status{st, ruffStatus()}
}

package rules

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// A fieldFixer is a language's own fixing tool, which the rules provider
// runs after the linters' suggested fixes, as LintEval's rule-based
// baselines do: it reads the text on stdin and prints the fixed text.
type fieldFixer struct {
	name string
	args []string
}

// fieldFixers are the fixers by language. C++ has clang-tidy's own fixes
// already (its --export-fixes replacements are the linters' suggested
// fixes); Java has none that this machine's package sources provide
// (google-java-format is neither a Debian nor an npm package here).
var fieldFixers = map[string]fieldFixer{
	// autopep8 fixes what pycodestyle reports (flake8's E and W codes).
	"python": {name: "autopep8", args: []string{"-"}},
}

// FieldFixer names the fixing tool the rules provider runs for language,
// when it is installed: "autopep8" for Python; "" for none.
func FieldFixer(language string) string {
	f, ok := fieldFixers[language]
	if !ok {
		return ""
	}
	if _, err := exec.LookPath(f.name); err != nil {
		return ""
	}
	return f.name
}

// fixerTimeout bounds one run of a field fixer.
const fixerTimeout = 30 * time.Second

// maxFixerOutput bounds what a field fixer may print.
const maxFixerOutput = 16 << 20

// runFieldFixer runs language's fixer on text, confined like the linters
// (sandbox.ConfineTool: no network, nothing writable but a scratch
// directory). It returns text unchanged when the language has no fixer or
// it is not installed.
func runFieldFixer(ctx context.Context, language, text string) (string, error) {
	f, ok := fieldFixers[language]
	if !ok {
		return text, nil
	}
	path, err := exec.LookPath(f.name)
	if err != nil {
		return text, nil
	}
	ctx, cancel := context.WithTimeout(ctx, fixerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, f.args...)
	cmd.Dir = os.TempDir()
	if err := sandbox.ConfineTool(cmd, nil); err != nil {
		return "", fmt.Errorf("rules: running %s: %w", f.name, err)
	}
	stdout, stderr := proc.NewLimitedBuffer(maxFixerOutput), proc.NewLimitedBuffer(64<<10)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("rules: %s did not finish within %s", f.name, fixerTimeout)
		}
		return "", fmt.Errorf("rules: %s failed (%v): %s", f.name, err, strings.TrimSpace(stderr.String()))
	}
	if stdout.Truncated() {
		return "", fmt.Errorf("rules: %s printed more than %d MiB", f.name, maxFixerOutput>>20)
	}
	return stdout.String(), nil
}

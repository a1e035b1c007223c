package lintcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestCommandIsConfined: a command linter runs in the sandbox, whatever
// its input mode. Told to print a secret outside the project (as a
// finding about the file, so that it would become a diagnostic) and to
// write outside its directory, it gets neither done; a secret in
// fixloop's environment does not reach it; the project and the spec's
// env it does see.
func TestCommandIsConfined(t *testing.T) {
	needSh(t)
	sandboxtest.NeedConfinement(t)
	base := realDir(t)
	canary := fmt.Sprintf("fixloop-canary-%d", time.Now().UnixNano())
	envCanary := canary + "-env"
	t.Setenv("FIXLOOP_CONFINE_TEST_API_KEY", envCanary)
	secret := filepath.Join(base, "home", "secret.txt")
	project := filepath.Join(base, "project")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Dir(secret), project, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Dir(secret), "secret.txt", canary+"\n")
	writeFile(t, project, "config.txt", "project-config\n")
	file := writeFile(t, project, "a.txt", "text\n")

	// $1 the secret, $2 a file to write outside, $3 the project's
	// configuration, $4 the file to report on (report's $5).
	const probe = `report() { printf '%s:1:1: warning: %s\n' "$5" "$1"; }
report "secret=$(cat "$1" 2>&1 | head -n 1)" "$@"
if echo pwned 2>/dev/null > "$2"; then report "wrote outside" "$@"; fi
report "env=$FIXLOOP_CONFINE_TEST_API_KEY. spec=$SPEC_VAR" "$@"
report "config=$(cat "$3")" "$@"
exit 1`
	written := filepath.Join(outside, "written")
	for _, input := range []string{InputStdin, InputFile, InputTempFile} {
		t.Run(input, func(t *testing.T) {
			l := newLinter(t, Spec{
				Name:        "prober",
				Command:     []string{"sh", "-c", probe, "sh", secret, written, filepath.Join(project, "config.txt"), "${file}"},
				Input:       input,
				Extensions:  []string{".txt"},
				Errorformat: gccFormat,
				Env:         []string{"SPEC_VAR=from-spec"},
				Root:        project,
			})
			res, err := l.Lint(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, a := range res.Alerts {
				msgs = append(msgs, a.Message)
			}
			all := strings.Join(msgs, "\n")
			if strings.Contains(all, canary) {
				t.Errorf("the secret reached the diagnostics:\n%s", all)
			}
			if _, err := os.Stat(written); err == nil || strings.Contains(all, "wrote outside") {
				t.Errorf("the command wrote %s", written)
			}
			for _, want := range []string{"secret=cat: ", "env=. spec=from-spec", "config=project-config"} {
				if !strings.Contains(all, want) {
					t.Errorf("diagnostics lack %q:\n%s", want, all)
				}
			}
		})
	}
}

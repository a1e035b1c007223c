package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/redacttest"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// TestFixRedactsToolOutput: fix --api-key-env names the key variable; the
// tool output quoting its value, a token's value, a private key, the
// project's .env SECRET_TOKEN and the AWS credentials file's secret reaches
// neither the model's prompts, the summary, the record, the store nor the
// log.
func TestFixRedactsToolOutput(t *testing.T) {
	redacttest.Setenv(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	_, file, _ := redacttest.Project(t)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", redacttest.StillBroken)},
		openaitest.Reply{Content: openaitest.CodeReply("go", redacttest.Fixed)},
	)
	tmp := t.TempDir()
	record, dsn, logFile := filepath.Join(tmp, "session.json"), filepath.Join(tmp, "sessions.db"), filepath.Join(tmp, "fixloop.log")
	code, out, errOut := run(t, "fix", "--json", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", redacttest.KeyVar, "--record", record, "--store", dsn,
		"--log-file", logFile, "--log-level", "debug", file)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if leaks := redacttest.Leaks(string(reqs[0].Body)); len(leaks) > 0 {
		t.Errorf("round 1's request shows %q", leaks)
	}
	redacttest.Check(t, "round 2's request", string(reqs[1].Body))
	redacttest.Check(t, "the --json summary", out)
	if leaks := redacttest.Leaks(errOut); len(leaks) > 0 {
		t.Errorf("stderr shows %q:\n%s", leaks, errOut)
	}
	rec, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	redacttest.Check(t, "the session record", string(rec))
	for _, r := range redacttest.StoredRecords(t, dsn) {
		redacttest.Check(t, "the store's record_json", r)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "linter failed") {
		t.Errorf("the log does not have the linter's failure:\n%s", log)
	}
	redacttest.Check(t, "the log", string(log))
}

// TestCheckRedactsToolOutput: check's diagnostics, test results and logs
// (on stderr) do not show the default key variable's value (OPENAI_API_KEY:
// check has no model flags), a token's value or a private key.
func TestCheckRedactsToolOutput(t *testing.T) {
	redacttest.Setenv(t)
	t.Setenv("OPENAI_API_KEY", redacttest.KeyValue)
	_, file, _ := redacttest.Project(t)
	code, out, errOut := run(t, "check", "--json", "--log-level", "debug", file)
	if code != ExitProblems {
		t.Fatalf("exit %d, want 1 (a failing test)\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "TestAdd") || !strings.Contains(out, "leaky failed") {
		t.Errorf("check's output lacks the test failure or the linter's note:\n%s", out)
	}
	redacttest.Check(t, "check --json", out)
	redacttest.Check(t, "the log on stderr", errOut)

	code, out, _ = run(t, "check", file)
	if code != ExitProblems {
		t.Fatalf("exit %d, want 1", code)
	}
	redacttest.Check(t, "check's table", out)
}

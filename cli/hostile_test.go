package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"

	_ "modernc.org/sqlite"

	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// TestFixHostileCandidate: a session whose model answers with a candidate
// that tries to read the SSH key and the configured key variable (LLM_KEY,
// a name no deny-list would catch) and to delete another directory: the
// directory stays, and neither secret reaches the round-2 prompt, the
// record, the store or the log. The SSH key is no private key block, so
// only the sandbox, not redaction, keeps it out.
func TestFixHostileCandidate(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	const sshCanary, keyCanary = "SSH-CANARY-4d1f0a9e77", "LLM-KEY-CANARY-93b2c8e1aa"
	home, proj, victim := sandboxtest.HostileProject(t, sshCanary)
	base := t.TempDir()
	t.Setenv("LLM_KEY", keyCanary)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	hostile := sandboxtest.HostileCalc(home, os.Getpid(), victim)
	fixed := "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", hostile)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
	)
	record, dsn, logFile := filepath.Join(base, "session.json"), filepath.Join(base, "sessions.db"), filepath.Join(base, "fixloop.log")
	code, out, errOut := run(t, "fix", "--json", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", "LLM_KEY", "--record", record, "--store", dsn, "--log-file", logFile, "--log-level", "debug",
		filepath.Join(proj, "calc.go"))
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Errorf("the candidate deleted a directory beside the project: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	prompt := string(reqs[1].Body)
	if !strings.Contains(prompt, "/proc/1/environ") {
		t.Errorf("round 2's prompt lacks the candidate's output, so the test proves nothing:\n%s", prompt)
	}
	rec, _ := os.ReadFile(record)
	log, _ := os.ReadFile(logFile)
	sinks := map[string]string{"round 2's prompt": prompt, "the record": string(rec), "the log": string(log), "stdout": out, "stderr": errOut}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT record_json FROM sessions")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		sinks["the store"] += r
	}
	rows.Close()
	if sinks["the store"] == "" {
		t.Error("nothing in the store")
	}
	for where, text := range sinks {
		for _, c := range []string{sshCanary, keyCanary} {
			if strings.Contains(text, c) {
				t.Errorf("%s holds %s", where, c)
			}
		}
	}
}

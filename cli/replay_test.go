package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor"
)

func TestReplay(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	golden := filepath.Join("..", "testdata", "sessions", "calc-refactor.json")
	rec, err := refactor.ReadRecord(golden)
	if err != nil {
		t.Fatal(err)
	}
	// A directory with the golden record three times and a tampered copy.
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		if err := refactor.WriteRecord(filepath.Join(dir, name), rec); err != nil {
			t.Fatal(err)
		}
	}
	tampered := *rec
	tampered.Outcome.LinesEdited = 99
	if err := refactor.WriteRecord(filepath.Join(dir, "d.json"), &tampered); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := run(t, "replay", "--jobs", "2", golden)
	if code != ExitOK || !strings.Contains(out, "ok: 2 rounds, metrics match") {
		t.Fatalf("golden: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "replay", dir)
	if code != ExitProblems {
		t.Errorf("tampered record: exit %d, want 1\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasSuffix(lines[0], "a.json: ok: 2 rounds, metrics match") || !strings.Contains(out, "d.json: differs from the record") ||
		!strings.Contains(out, "LinesEdited:2") {
		t.Errorf("report (in path order):\n%s", out)
	}

	// --rerun checks a fresh record's answers with today's tools.
	file := calcCopy(t)
	record := filepath.Join(t.TempDir(), "s.json")
	if code, out, errOut := run(t, "fix", "--record", record, file); code != ExitOK {
		t.Fatalf("fix: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "replay", "--rerun", record)
	if code != ExitOK || !strings.Contains(out, "metrics match") {
		t.Errorf("--rerun: exit %d\n%s%s", code, out, errOut)
	}
	// --rerun needs the project.
	os.Remove(file)
	code, out, _ = run(t, "replay", "--rerun", record)
	if code != ExitUsage || !strings.Contains(out, "not on this machine") {
		t.Errorf("--rerun without the project: exit %d\n%s", code, out)
	}
	if code, _, errOut := run(t, "replay", t.TempDir()); code != ExitUsage || !strings.Contains(errOut, "no session records") {
		t.Errorf("empty directory: exit %d, %s", code, errOut)
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/store/storetest"
)

func TestReportFromStoreAndRecords(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	file := calcCopy(t)
	if code, out, errOut := run(t, "fix", file); code != ExitOK {
		t.Fatalf("fix: %d\n%s%s", code, out, errOut)
	}
	// fix saved the session to the default SQLite store; report reads it.
	code, out, errOut := run(t, "report", "--format", "json")
	if code != ExitOK {
		t.Fatalf("report: %d %s", code, errOut)
	}
	var scores map[string]any
	if err := json.Unmarshal([]byte(out), &scores); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	refactorScores := scores["refactor"].(map[string]any)
	if scores["sessions"] != float64(1) || refactorScores["pass_at_1"] != float64(1) || refactorScores["reduction_at_p"] != float64(1) {
		t.Errorf("scores: %s", out)
	}
	for _, key := range []string{"sessions", "repair", "refactor", "by"} {
		if _, ok := scores[key]; !ok {
			t.Errorf("report JSON lacks %q", key)
		}
	}
	// The stored session replays from the store.
	db := filepath.Join(os.Getenv("XDG_STATE_HOME"), "fixloop", "sessions.db")
	if code, out, errOut := run(t, "replay", db); code != ExitOK || !strings.Contains(out, "metrics match") {
		t.Errorf("replay from the store: exit %d\n%s%s", code, out, errOut)
	}
	// Filters.
	if _, out, _ := run(t, "report", "--format", "json", "--goal", "repair"); !strings.Contains(out, `"sessions": 0`) {
		t.Errorf("--goal repair should match nothing:\n%s", out)
	}
	if _, out, _ := run(t, "report", "--format", "json", "--since", "1h", "--workspace", filepath.Dir(file)); !strings.Contains(out, `"sessions": 1`) {
		t.Errorf("--since 1h --workspace: %s", out)
	}
	if code, _, errOut := run(t, "report", "--since", "yesterday-ish"); code != ExitUsage || !strings.Contains(errOut, "--since") {
		t.Errorf("bad --since: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, "report", "--format", "pdf"); code != ExitUsage || !strings.Contains(errOut, "--format") {
		t.Errorf("bad --format: exit %d %s", code, errOut)
	}
	// From record files, as HTML.
	golden := filepath.Join("..", "testdata", "sessions", "calc-refactor.json")
	code, out, _ = run(t, "report", "--format", "html", golden)
	if code != ExitOK || !strings.Contains(out, `data-chart="categories"`) || !strings.Contains(out, "<svg") {
		t.Errorf("html report: exit %d, %d bytes", code, len(out))
	}
}

// TestTeamStoreOnPostgres saves a session into PostgreSQL and reports on it,
// as a team's shared store would. It runs when FIXLOOP_TEST_POSTGRES holds a
// DSN (CI starts a server with store/testdata/postgres.sh).
func TestTeamStoreOnPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t, "cli")
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	file := calcCopy(t)
	if code, out, errOut := run(t, "fix", "--store", dsn, file); code != ExitOK {
		t.Fatalf("fix: %d\n%s%s", code, out, errOut)
	}
	_, out, errOut := run(t, "report", "--store", dsn, "--format", "json", "--workspace", filepath.Dir(file))
	if !strings.Contains(out, `"sessions": 1`) {
		t.Errorf("report from PostgreSQL:\n%s%s", out, errOut)
	}
}

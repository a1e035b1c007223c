package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	// The LintEval samples went through the store: the rules provider's
	// round 1 is also its final output, and it keeps the tests.
	for _, block := range []string{"linteval", "linteval_k"} {
		le, ok := refactorScores[block].(map[string]any)
		if !ok {
			t.Errorf("refactor.%s = %v in %s", block, refactorScores[block], out)
			continue
		}
		if le["sessions"] != 1.0 || le["skipped"] != 0.0 || le["pass_at_1"] != 1.0 || le["reduction_at_p"] != 1.0 || le["reduction_at_f"] != nil {
			t.Errorf("refactor.%s = %v", block, le)
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
	// A run that is not in the store is an error, not an empty report.
	if code, _, errOut := run(t, "report", "--run", "nosuchrun"); code != ExitUsage || !strings.Contains(errOut, `no sessions of the run "nosuchrun"`) {
		t.Errorf("--run nosuchrun: exit %d %s", code, errOut)
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

// TestReportRulesSessionTable: a session of the offline rules provider is
// reported under "rules", not "(none)"; the scores of the goal it has no
// session of are "–" in the table and null in JSON; rates are percentages
// with one decimal. --model rules selects it, from the store and from
// records.
func TestReportRulesSessionTable(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	record := filepath.Join(t.TempDir(), "rules.json")
	if code, out, errOut := run(t, "fix", "--record", record, calcCopy(t)); code != ExitOK {
		t.Fatalf("fix: %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"report"}, {"report", "--model", "rules"}, {"report", "--model", "rules", record}} {
		code, out, errOut := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		for _, want := range [][]string{
			{"Sessions", "1"},
			// Each score in the model's view and the offered one.
			{"Repair", "model", "offered"},
			{"sessions", "0", "0"},
			{"pass@1", "–", "–"},
			{"MIS", "–", "–"},
			{"Refactor", "model", "offered"},
			{"sessions", "1", "1"},
			{"passing", "1", "1"},
			{"Pass@1", "100.0%", "100.0%"},
			{"Reduction@P", "100.0%", "100.0%"},
			{"New@P", "0.0%", "0.0%"},
			{"ΔLine@P", "2", "2"},
			{"LinePerFix@P", "2", "2"},
			{"Reduction@F", "–", "–"},
			{"New@F", "–", "–"},
			{"rules", "1", "0", "–", "–", "–", "1", "100.0%", "100.0%", "0.0%", "2", "100.0%", "100.0%"},
			// The same session under each definition, side by side.
			{"Refactor", "by", "definition,", "model", "editor", "(result)", "LintEval,", "attempt", "1", "LintEval,", "after", "k", "rounds"},
			{"Refactor", "by", "definition,", "offered", "editor", "(result)", "LintEval,", "attempt", "1", "LintEval,", "after", "k", "rounds"},
			{"Pass@1", "100.0%", "100.0%", "100.0%"},
			{"Reduction@P", "100.0%", "100.0%", "100.0%"},
			{"Reduction@F", "–", "–", "–"},
			{"ΔLine@F", "n/a", "–", "–"},
		} {
			if !hasFields(out, want...) {
				t.Errorf("%v: no line %q in\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "(none)") {
			t.Errorf("%v: a session is labelled (none):\n%s", args, out)
		}
	}
	_, out, _ := run(t, "report", "--format", "json", "--model", "rules")
	var scores struct {
		Sessions int                       `json:"sessions"`
		Repair   map[string]any            `json:"repair"`
		Refactor map[string]any            `json:"refactor"`
		By       map[string]map[string]any `json:"by"`
		Offered  *struct {
			Sessions int            `json:"sessions"`
			Refactor map[string]any `json:"refactor"`
		} `json:"offered"`
	}
	if err := json.Unmarshal([]byte(out), &scores); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pass_at_1", "mis"} {
		if v, ok := scores.Repair[k]; !ok || v != nil {
			t.Errorf("repair.%s = %v (present %v), want null", k, v, ok)
		}
	}
	if scores.Sessions != 1 || scores.Refactor["reduction_at_p"] != 1.0 || scores.Refactor["reduction_at_f"] != nil {
		t.Errorf("scores: %s", out)
	}
	// The offered view, under its own key, with the same keys.
	if o := scores.Offered; o == nil || o.Sessions != 1 || o.Refactor["reduction_at_p"] != 1.0 || o.Refactor["pass_at_1"] != 1.0 {
		t.Errorf("offered: %+v in %s", o, out)
	}
	if _, ok := scores.By["model"]["rules"]; !ok {
		t.Errorf("by.model = %v, want rules", scores.By["model"])
	}
	if _, out, _ := run(t, "report", "--format", "json", "--model", "gpt-4o"); !strings.Contains(out, `"sessions": 0`) {
		t.Errorf("--model gpt-4o matched the rules session:\n%s", out)
	}
}

// hasFields reports whether out has a line whose fields are exactly fields.
func hasFields(out string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		if slices.Equal(strings.Fields(l), fields) {
			return true
		}
	}
	return false
}

// TestReportHelpNamesLintEval: report's help names both definitions of the
// refactor scores and their JSON keys.
func TestReportHelpNamesLintEval(t *testing.T) {
	code, out, errOut := run(t, "report", "--help")
	if code != ExitOK {
		t.Fatalf("report --help: exit %d %s", code, errOut)
	}
	for _, want := range []string{"editor's", "offers", "LintEval", "attempt 1", "refactor.linteval", "refactor.linteval_k", "after k rounds",
		`"model"`, `"offered"`, "salvaged", "column \"view\""} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

package cli

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/eval/scripted"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestEvalScoresHoldUnderLoad runs the bundled dataset through fixloop
// eval with the scripted model twice, idle and under bench/busy.sh (two
// CPU hogs per core), and checks that every session's verdicts and the
// run's scores are the same: time limits count CPU time, so a busy
// machine does not change what a program is judged (issue 23).
func TestEvalScoresHoldUnderLoad(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	if testing.Short() {
		t.Skip("runs the bundled dataset twice")
	}
	busy, err := filepath.Abs(filepath.Join("..", "bench", "busy.sh"))
	if err != nil {
		t.Fatal(err)
	}
	s := newScriptedEval(t)
	problems, srv, bin, db, env := s.problems, s.srv, s.bin, s.db, s.env

	evalRun := func(name string, prefix ...string) string {
		args := slices.Concat(prefix, []string{bin, "eval", "--model", scripted.ModelName, "--base-url", srv.URL + "/v1",
			"--store", db, "--run", name, "--jobs", "2", "--json", bundledDataset})
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("eval --run %s: %v\n%s", name, err, stderr.String())
		}
		return stdout.String()
	}
	idle := evalRun("idle")
	loaded := evalRun("busy", busy)

	if a, b := scores(t, idle), scores(t, loaded); a != b {
		t.Errorf("scores differ:\nidle: %s\nbusy: %s", a, b)
	}
	a, b := sessionOutcomes(t, db, "idle"), sessionOutcomes(t, db, "busy")
	if len(a) != len(problems) {
		t.Errorf("%d sessions stored idle, want %d", len(a), len(problems))
	}
	for p, want := range a {
		if got := b[p]; got != want {
			t.Errorf("%s: idle %s\nbusy %s", p, want, got)
		}
	}
}

// scores is the eval report's JSON with what depends on time left out:
// every key ending in _ms or _s, and the run's name.
func scores(t *testing.T, report string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(report), &v); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, report)
	}
	b, err := json.Marshal(timeless(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// timeless drops the keys of v that hold times, names or dates.
func timeless(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_s") || strings.HasSuffix(k, "MS") ||
				slices.Contains([]string{"run", "created", "saved", "id", "duration", "wall", "cpu", "tokens"}, k) {
				continue
			}
			out[k] = timeless(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = timeless(x)
		}
		return out
	}
	return v
}

// sessionOutcomes returns, per problem of run, its stored metrics and
// every round's verdict and tests.
func sessionOutcomes(t *testing.T, db, run string) map[string]string {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT problem, solved_round, passed, alerts_before, fixed, "new", lines_edited, session_json FROM sessions WHERE run = ?`, run)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, sj string
		var solved, passed, before, fixed, added, lines int
		if err := rows.Scan(&p, &solved, &passed, &before, &fixed, &added, &lines, &sj); err != nil {
			t.Fatal(err)
		}
		var s struct {
			Rounds []struct {
				Verdict     string `json:"verdict"`
				TestsPassed int    `json:"tests_passed"`
				TestsTotal  int    `json:"tests_total"`
			} `json:"rounds"`
		}
		if err := json.Unmarshal([]byte(sj), &s); err != nil {
			t.Fatalf("%s: session JSON: %v", p, err)
		}
		out[p] = fmt.Sprintf("solved %d passed %d alerts %d fixed %d new %d lines %d rounds %+v", solved, passed, before, fixed, added, lines, s.Rounds)
	}
	return out
}

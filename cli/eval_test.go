package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/scripted"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// bundledDataset is the dataset docs/sessions.md runs.
const bundledDataset = "../testdata/eval"

// datasetModel is the scripted model of package scripted for the bundled
// dataset, answering each repair problem with its correct program (the
// sibling problem's accepted solution) and each refactor problem with the
// file unchanged, as a model that only repairs would, each answer after
// delay.
type datasetModel struct {
	srv   *httptest.Server
	model *scripted.Model
}

// repairs maps each repair problem to the problem whose program is its
// correct version, or to "" when the fix is written here.
var repairs = map[string]string{
	"py-sum-wrong": "py-sum", "py-sum-crash": "py-sum", "py-average-rounded": "py-average",
	"py-divisor-wrong": "py-divisor", "py-stats": "py-stats-lint",
	"cpp-sum-broken": "cpp-sum", "cpp-sum-wrong": "cpp-sum", "java-sum-broken": "java-sum",
	"go-shapes": "",
}

func newDatasetModel(t *testing.T, delay time.Duration) *datasetModel {
	t.Helper()
	loaded, err := eval.Load(bundledDataset)
	if err != nil {
		t.Fatal(err)
	}
	programs := map[string]string{} // problem -> program path, as eval finds them
	for _, p := range loaded {
		programs[p.ID] = p.File
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	answers := map[string]string{}
	for problem, fixed := range repairs {
		if fixed == "" {
			answers[problem] = strings.Replace(read(programs[problem]), "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)", 1)
		} else {
			answers[problem] = read(programs[fixed])
		}
	}
	model, err := scripted.NewAnswering(loaded, answers)
	if err != nil {
		t.Fatal(err)
	}
	m := &datasetModel{model: model}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		model.ServeHTTP(w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *datasetModel) url() string { return m.srv.URL + "/v1" }

// storedRuns returns, per problem, the ids of the sessions stored for run.
func storedRuns(t *testing.T, db, run string) map[string][]string {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT problem, id FROM sessions WHERE run = ?`, run)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var p, id string
		if err := rows.Scan(&p, &id); err != nil {
			t.Fatal(err)
		}
		out[p] = append(out[p], id)
	}
	return out
}

// TestEvalBundledDataset runs docs/sessions.md's eval command on the bundled
// dataset with a scripted model, twice: the first run stores one session
// per problem and prints the run's report with both definitions; the
// second finds them stored and runs nothing.
func TestEvalBundledDataset(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	m := newDatasetModel(t, 0)
	db := filepath.Join(t.TempDir(), "eval.db")
	args := []string{"eval", "--provider", "openai", "--model", "scripted", "--base-url", m.url(), "--api-key-env", "FIXLOOP_EVAL_TEST_KEY",
		"--store", db, "--run", "bundled", "--jobs", "2", "--rounds", "2", "--json", bundledDataset}
	code, out, errOut := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	var rep struct {
		Sessions int
		Repair   struct {
			Sessions int
			PassAt1  *float64 `json:"pass_at_1"`
		}
		Refactor struct {
			Sessions int
			PassAt1  *float64 `json:"pass_at_1"`
			LintEval struct {
				Sessions int
				PassAt1  *float64 `json:"pass_at_1"`
			} `json:"linteval"`
			LintEvalK struct {
				PassAt1 *float64 `json:"pass_at_1"`
			} `json:"linteval_k"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, out)
	}
	loaded, err := eval.Load(bundledDataset)
	if err != nil {
		t.Fatal(err)
	}
	problems := len(loaded)
	if rep.Sessions != problems || rep.Repair.Sessions != len(repairs) {
		t.Errorf("%d sessions (%d repair), want %d (%d)", rep.Sessions, rep.Repair.Sessions, problems, len(repairs))
	}
	if rep.Repair.PassAt1 == nil || *rep.Repair.PassAt1 != 1 {
		t.Errorf("repair pass@1 %v, want 1: every repair problem was answered with its correct program\n%s", rep.Repair.PassAt1, errOut)
	}
	// Refactor problems were answered unchanged: the editor offers
	// nothing; LintEval counts each unchanged file that keeps its tests.
	if rep.Refactor.PassAt1 == nil || *rep.Refactor.PassAt1 != 0 {
		t.Errorf("editor refactor Pass@1 %v, want 0", rep.Refactor.PassAt1)
	}
	if p := rep.Refactor.LintEval.PassAt1; p == nil || *p != 1 {
		t.Errorf("LintEval attempt-1 Pass@1 %v, want 1", p)
	}
	if p := rep.Refactor.LintEvalK.PassAt1; p == nil || *p != 1 {
		t.Errorf("LintEval after-k Pass@1 %v, want 1", p)
	}
	// The offered view: the same here, nothing being cut down.
	var full aggregate.Scores
	if err := json.Unmarshal([]byte(out), &full); err != nil {
		t.Fatal(err)
	}
	if o := full.Offered; o == nil || o.Sessions != problems || o.Refactor.PassAt1 == nil || *o.Refactor.PassAt1 != 0 ||
		o.Refactor.LintEval.PassAt1 == nil || *o.Refactor.LintEval.PassAt1 != 1 || o.Repair.PassAt1 == nil || *o.Repair.PassAt1 != 1 {
		t.Errorf("offered view: %+v", o)
	}
	stored := storedRuns(t, db, "bundled")
	if len(stored) != problems {
		t.Errorf("%d problems stored, want %d: %v", len(stored), problems, stored)
	}
	for p, ids := range stored {
		if len(ids) != 1 {
			t.Errorf("problem %s stored %d times", p, len(ids))
		}
	}
	for _, want := range []string{`run "bundled", 17 problems x 1 model(s) = 17 sessions, 0 already stored; queue: SQLite queue`, "17 sessions to run, 2 at a time", "[17/17]", "py-sum-wrong: repair, solved after 1 round(s)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress does not say %q:\n%s", want, errOut)
		}
	}

	// Again: everything is stored already.
	before := m.model.Requests()
	code, _, errOut = run(t, args...)
	if code != ExitOK || !strings.Contains(errOut, "17 already stored") || !strings.Contains(errOut, "0 sessions ran, 0 given up, 17 stored before") {
		t.Errorf("second run: exit %d\n%s", code, errOut)
	}
	if n := m.model.Requests(); n != before {
		t.Errorf("the second run asked the model %d times", n-before)
	}

	// The report of the run, from the store.
	code, out, errOut = run(t, "report", "--store", db, "--run", "bundled", "--format", "json")
	if code != ExitOK || !strings.Contains(out, `"sessions": 17`) {
		t.Errorf("report --run: exit %d\n%s%s", code, out, errOut)
	}
	// A run the store does not have is an error, not an empty report.
	code, _, errOut = run(t, "report", "--store", db, "--run", "another", "--format", "json")
	if code != ExitUsage || !strings.Contains(errOut, `no sessions of the run "another"`) {
		t.Errorf("report --run another: exit %d\n%s", code, errOut)
	}
}

// TestEvalResumesAfterInterrupt interrupts a run of the built binary with
// SIGINT (Ctrl-C) part way and runs it again: the first run stops cleanly,
// storing only finished sessions; the second runs the rest; every problem
// ends with exactly one session.
func TestEvalResumesAfterInterrupt(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	bin := fixloopBinary(t)
	m := newDatasetModel(t, 400*time.Millisecond)
	db := filepath.Join(t.TempDir(), "eval.db")
	args := []string{"eval", "--provider", "openai", "--model", "scripted", "--base-url", m.url(), "--api-key-env", "FIXLOOP_EVAL_TEST_KEY",
		"--store", db, "--run", "resume", "--jobs", "2", "--rounds", "1", bundledDataset}
	env := append(os.Environ(), "FIXLOOP_MODEL=", "XDG_STATE_HOME="+t.TempDir())

	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	lines := make(chan string)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		for {
			n, err := stderr.Read(buf)
			if n > 0 {
				lines <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.After(10 * time.Minute) // must happen; room for a loaded machine
	for !strings.Contains(log.String(), "[4/17]") {
		select {
		case s, ok := <-lines:
			if !ok {
				t.Fatalf("eval ended before four sessions:\n%s", log.String())
			}
			log.WriteString(s)
		case <-deadline:
			t.Fatalf("no four sessions within 10 minutes:\n%s", log.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for s := range lines {
		log.WriteString(s)
	}
	err = cmd.Wait()
	first := log.String()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitProblems {
		t.Fatalf("interrupted eval: %v, want exit %d\n%s", err, ExitProblems, first)
	}
	if !strings.Contains(first, `interrupted; run the same command again to resume run "resume"`) {
		t.Errorf("the interrupted run does not say how to resume:\n%s", first)
	}
	storedFirst := storedRuns(t, db, "resume")
	if len(storedFirst) < 4 || len(storedFirst) >= 17 {
		t.Fatalf("%d problems stored after the interrupt, want 4 to 16\n%s", len(storedFirst), first)
	}

	cmd = exec.CommandContext(context.Background(), bin, args...)
	cmd.Env = env
	var second bytes.Buffer
	cmd.Stderr, cmd.Stdout = &second, io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatalf("resumed eval: %v\n%s", err, second.String())
	}
	if want := fmt.Sprintf("%d already stored", len(storedFirst)); !strings.Contains(second.String(), want) {
		t.Errorf("the resumed run does not say %q:\n%s", want, second.String())
	}
	stored := storedRuns(t, db, "resume")
	if len(stored) != 17 {
		t.Errorf("%d problems stored after resuming, want 17", len(stored))
	}
	for p, ids := range stored {
		if len(ids) != 1 {
			t.Errorf("problem %s stored %d times", p, len(ids))
		}
		if first, ok := storedFirst[p]; ok && !slices.Equal(first, ids) {
			t.Errorf("problem %s: stored %v before, %v after resuming: it ran again", p, first, ids)
		}
	}
}

// TestEvalModelDownStoresNothing runs eval against an endpoint that refuses
// every completion request (and has no GET /models, so that eval's probe
// lets the run start): the sessions are given up, not stored (they say nothing
// about the model), eval exits 1 naming the error, and the same command
// against a working endpoint then runs and stores them.
func TestEvalModelDownStoresNothing(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dataset := benchDataset(t, "py-sum-wrong", "cpp-sum-broken")
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			// No model list, as some compatible servers: eval's probe
			// takes the endpoint as reachable, and the sessions find
			// out.
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error": {"message": "bad key", "type": "invalid_request_error"}}`)
	}))
	defer down.Close()
	db := filepath.Join(t.TempDir(), "eval.db")
	args := func(url string) []string {
		return []string{"eval", "--provider", "openai", "--model", "scripted", "--base-url", url, "--api-key-env", "FIXLOOP_EVAL_TEST_KEY",
			"--store", db, "--run", "down", "--rounds", "1", "--jobs", "2", dataset}
	}
	code, _, errOut := run(t, args(down.URL+"/v1")...)
	if code != ExitProblems {
		t.Fatalf("exit %d, want %d\n%s", code, ExitProblems, errOut)
	}
	for _, want := range []string{"given up: the model failed, so the session is not stored", "401", "0 sessions ran, 2 given up", "run the command again to retry them"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if stored := storedRuns(t, db, "down"); len(stored) != 0 {
		t.Errorf("sessions stored with the model down: %v", stored)
	}
	m := newDatasetModel(t, 0)
	code, _, errOut = run(t, args(m.url())...)
	if code != ExitOK || !strings.Contains(errOut, "0 already stored") {
		t.Fatalf("with the model up: exit %d\n%s", code, errOut)
	}
	if stored := storedRuns(t, db, "down"); len(stored) != 2 {
		t.Errorf("%d problems stored with the model up, want 2", len(stored))
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/scripted"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// bundledAnswers is the scripted model's folder of answers to the bundled
// dataset.
var bundledAnswers = filepath.Join("..", "testdata", "eval-answers")

// TestEvalScriptedModelThroughWorker follows docs/sessions.md's evaluator path
// with the scripted model it names (package scripted, the model of
// ./eval/scripted/cmd/scripted-model): fixloop eval --enqueue fills the
// SQLite queue in the store, a fixloop worker process works it until every
// problem is stored, Ctrl-C stops the worker, and report prints the
// paper-layout tables under both definitions.
func TestEvalScriptedModelThroughWorker(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	s := newScriptedEval(t)
	problems, m, srv, bin, db, env := s.problems, s.model, s.srv, s.bin, s.db, s.env

	enqueue := exec.Command(bin, "eval", "--model", scripted.ModelName, "--base-url", srv.URL+"/v1",
		"--store", db, "--enqueue", "--run", "scripted", bundledDataset)
	enqueue.Env = env
	out, err := enqueue.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("17 sessions enqueued")) {
		t.Fatalf("eval --enqueue: %v\n%s", err, out)
	}
	worker, lines := startWorker(t, bin, env, "--queue", db, "--jobs", "2")
	var log strings.Builder
	const patience = 12 * time.Minute // must happen; room for a loaded machine
	deadline := time.After(patience)
	for len(storedRuns(t, db, "scripted")) < len(problems) {
		select {
		case l := <-lines:
			log.WriteString(l + "\n")
		case <-deadline:
			t.Fatalf("%d of %d problems stored after %v:\n%s", len(storedRuns(t, db, "scripted")), len(problems), patience, log.String())
		case <-time.After(300 * time.Millisecond):
		}
	}
	if err := worker.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Its last lines, up to its exit (before Wait, which closes the pipe).
	drained := time.After(2 * time.Minute)
drain:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break drain
			}
			log.WriteString(l + "\n")
		case <-drained:
			break drain
		}
	}
	stopped := make(chan error, 1)
	go func() { stopped <- worker.Wait() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("the worker, stopped with Ctrl-C once the queue was empty: %v\n%s", err, log.String())
		}
	case <-time.After(2 * time.Minute):
		t.Errorf("the worker did not stop within 2 minutes of SIGINT")
	}
	// It counted the run's sessions, and summed up when it stopped.
	for _, want := range []string{fmt.Sprintf("[%d/%d] scripted ", len(problems), len(problems)), fmt.Sprintf("fixloop worker done: %d sessions ran, 0 given up; stopped", len(problems))} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the worker did not say %q:\n%s", want, log.String())
		}
	}
	for p, ids := range storedRuns(t, db, "scripted") {
		if len(ids) != 1 {
			t.Errorf("problem %s stored %d times", p, len(ids))
		}
	}
	if m.Requests() == 0 {
		t.Error("the scripted model was never asked")
	}

	code, rep, errOut := run(t, "report", "--store", db, "--run", "scripted", "--format", "json")
	if code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	var r struct {
		Repair struct {
			PassAt1 *float64 `json:"pass_at_1"`
		}
		Refactor struct {
			PassAt1  *float64 `json:"pass_at_1"`
			LintEval struct {
				PassAt1      *float64 `json:"pass_at_1"`
				ReductionAtP *float64 `json:"reduction_at_p"`
				NewAtP       *float64 `json:"new_at_p"`
			} `json:"linteval"`
		}
	}
	if err := json.Unmarshal([]byte(rep), &r); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, rep)
	}
	// Every repair problem is answered with its correct program; go-calc
	// and go-tally with refactored files, which fix alerts and make none;
	// the other refactor problems with the file unchanged, which keeps its
	// tests. (How many refactor sessions are scored depends on which Python,
	// C++ and Java linters are installed: without them those files have no
	// alert and need no model.)
	checks := []struct {
		name string
		got  *float64
		ok   func(float64) bool
		want string
	}{
		{"repair pass@1", r.Repair.PassAt1, func(v float64) bool { return v == 1 }, "1"},
		{"editor refactor Pass@1", r.Refactor.PassAt1, func(v float64) bool { return v > 0 && v < 1 }, "between 0 and 1: go-calc and go-tally offer results, the unchanged files do not"},
		{"LintEval Pass@1", r.Refactor.LintEval.PassAt1, func(v float64) bool { return v == 1 }, "1"},
		{"LintEval Reduction@P", r.Refactor.LintEval.ReductionAtP, func(v float64) bool { return v > 0 }, "above 0"},
		{"LintEval New@P", r.Refactor.LintEval.NewAtP, func(v float64) bool { return v == 0 }, "0"},
	}
	for _, c := range checks {
		if c.got == nil || !c.ok(*c.got) {
			t.Errorf("%s: %v, want %s", c.name, ptrText(c.got), c.want)
		}
	}
	code, latex, errOut := run(t, "report", "--store", db, "--run", "scripted", "--format", "latex")
	if code != ExitOK {
		t.Fatalf("report --format latex: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"Refactoring by model, LintEval, attempt 1 [model]", "Refactoring by model, LintEval, after k rounds [model]",
		"Refactoring by model, editor (result) [model]", "Refactoring by model, editor (result) [offered]", "scripted & "} {
		if !strings.Contains(latex, want) {
			t.Errorf("the LaTeX report lacks %q:\n%s", want, latex)
		}
	}
}

func ptrText(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}

// scriptedEval is docs/sessions.md's evaluator path set up: the bundled
// dataset, the scripted model serving its answers, a fixloop binary, a
// store and the environment to run it in.
type scriptedEval struct {
	problems []eval.Problem
	model    *scripted.Model
	srv      *httptest.Server
	bin, db  string
	env      []string
}

func newScriptedEval(t *testing.T) *scriptedEval {
	t.Helper()
	problems, err := eval.Load(bundledDataset)
	if err != nil {
		t.Fatal(err)
	}
	m, err := scripted.New(problems, bundledAnswers)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return &scriptedEval{
		problems: problems, model: m, srv: srv,
		bin: fixloopBinary(t), db: filepath.Join(t.TempDir(), "eval.db"),
		env: append(os.Environ(), "FIXLOOP_MODEL=", "XDG_STATE_HOME="+t.TempDir()),
	}
}

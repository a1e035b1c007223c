package refactor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openai"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/refactor/model/rules"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/golang/golist"
	"github.com/fixloop/fixloop/runner/golang/gotest"
)

// calcModule copies testdata/calc into a temporary directory and returns
// the path of calc.go and its text.
func calcModule(t *testing.T) (string, string) {
	t.Helper()
	file := filepath.Join(testtree.Copy(t, filepath.Join("..", "testdata", "calc")), "calc.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, string(text)
}

// TestMain sets the API key variable the scripted endpoint receives (tests
// that run in parallel cannot use t.Setenv).
func TestMain(m *testing.M) {
	golist.Serve() // the confined load of a candidate runs this binary
	os.Setenv("FIXLOOP_TEST_KEY", "sk-test-secret-0123456789")
	os.Exit(m.Run())
}

// roomy is the test timeout of checks whose tests must finish: it bounds
// the whole go test, build included, in wall-clock time, so it leaves room
// for a loaded machine (issue 23).
const roomy = 5 * time.Minute

func checker(t testing.TB, timeout time.Duration) *refactor.Checker {
	a, err := golang.NewAnalyzer(golang.AnalyzerOptions{})
	if err != nil {
		panic(err)
	}
	return &refactor.Checker{Linter: a, Tester: gotest.New(nil), TestTimeout: timeout}
}

func openaiProvider(t *testing.T, srv *openaitest.Server) model.Provider {
	t.Helper()
	p, err := openai.New(openai.Options{BaseURL: srv.URL, Model: "scripted", APIKeyEnv: "FIXLOOP_TEST_KEY", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// replace returns text with old replaced by new, failing if old is absent.
func replace(t *testing.T, text, old, new string) string {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("fixture lacks %q", old)
	}
	return strings.Replace(text, old, new, 1)
}

func TestRefactorSolvedInRound2AfterCompileError(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	broken := replace(t, text, `return fmt.Sprintf("hello")`, `return "hello" +`)
	fixed := replace(t, text, `return fmt.Sprintf("hello")`, `return "hello"`)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", broken)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
	)
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Rounds) != 2 || rec.Rounds[0].Verdict != refactor.VerdictCompileError || rec.Rounds[1].Verdict != refactor.VerdictAccepted {
		t.Fatalf("rounds = %+v", verdicts(rec))
	}
	if !rec.Outcome.Solved || rec.Outcome.SolvedRound != 2 || rec.Outcome.Round != 2 || rec.Outcome.Text != fixed {
		t.Errorf("outcome = %+v", rec.Outcome)
	}
	if rec.Outcome.Fixed != 1 || rec.Outcome.New != 0 || rec.Outcome.LinesEdited != 2 {
		t.Errorf("metrics: fixed %d new %d lines %d, want 1 0 2", rec.Outcome.Fixed, rec.Outcome.New, rec.Outcome.LinesEdited)
	}
	// Round 2 sent the whole conversation: system, task, answer, feedback.
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 {
		t.Fatalf("requests: %d, round 2 messages: %d", len(reqs), len(reqs[1].Messages))
	}
	m := reqs[1].Messages
	if m[0].Role != "system" || m[1].Role != "user" || m[2].Role != "assistant" || m[3].Role != "user" {
		t.Errorf("roles: %s %s %s %s", m[0].Role, m[1].Role, m[2].Role, m[3].Role)
	}
	if !strings.Contains(m[1].Content, "S1039") || !strings.Contains(m[1].Content, "unnecessary use of fmt.Sprintf") {
		t.Errorf("first prompt does not name the alert:\n%s", m[1].Content)
	}
	if !strings.Contains(m[3].Content, "does not compile") || !strings.Contains(m[3].Content, "line 26") {
		t.Errorf("compile feedback:\n%s", m[3].Content)
	}
	if m[2].Content != openaitest.CodeReply("go", broken) {
		t.Errorf("the history's assistant message is not round 1's answer:\n%s", m[2].Content)
	}
	// The record never holds the API key.
	data, _ := json.Marshal(rec)
	if strings.Contains(string(data), "sk-test-secret") {
		t.Error("the session record contains the API key")
	}
}

func TestCandidateThatBreaksATestIsNeverOffered(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	// Clears S1039 but changes behaviour.
	wrong := replace(t, text, `return fmt.Sprintf("hello")`, `return "hello!"`)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", wrong)},
		openaitest.Reply{Content: openaitest.CodeReply("go", wrong)},
	)
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Rounds: 2, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Offered() || rec.Outcome.Solved {
		t.Fatalf("a test-breaking candidate was offered: %+v", rec.Outcome)
	}
	if rec.Rounds[0].Verdict != refactor.VerdictWrongAnswer || rec.Rounds[0].Metrics.KeepsTests || rec.Rounds[0].Metrics.Fixed != 1 {
		t.Errorf("round 1: %+v", rec.Rounds[0].Metrics)
	}
	fb := rec.Rounds[0].Feedback
	if !strings.Contains(fb, "TestGreeting") || !strings.Contains(fb, "changed behaviour") {
		t.Errorf("feedback:\n%s", fb)
	}
	if rec.Stop != refactor.StopRounds {
		t.Errorf("stop = %s", rec.Stop)
	}
}

func TestRepairFailingTest(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	buggy := replace(t, text, "for i := 0; i < len(xs); i++", "for i := 1; i < len(xs); i++")
	srv := openaitest.New(t,
		openaitest.Reply{Content: "I think it is fine."},
		openaitest.Reply{Content: openaitest.CodeReply("go", text)},
	)
	rec, err := refactor.Run(context.Background(), file, buggy, refactor.Options{
		Goal: refactor.GoalRepair, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rec); got != "no_code accepted" {
		t.Fatalf("verdicts = %s", got)
	}
	first := srv.Requests()[0].Messages[1].Content
	if !strings.Contains(first, "TestSum") || !strings.Contains(first, "Sum = 5, want 6") {
		t.Errorf("the repair prompt does not show the failure:\n%s", first)
	}
	if !strings.Contains(rec.Rounds[0].Feedback, "```go") {
		t.Errorf("no-code feedback does not ask for a go block:\n%s", rec.Rounds[0].Feedback)
	}
	if rec.Outcome.Text != text || rec.Outcome.TestsPassed != 4 {
		t.Errorf("outcome = %+v", rec.Outcome)
	}
}

func TestEndlessLoopIsTimeLimitExceeded(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	buggy := replace(t, text, "for i := 0; i < len(xs); i++", "for i := 1; i < len(xs); i++")
	loops := replace(t, text, "for i := 0; i < len(xs); i++", "for i := 0; i < len(xs); i += 0")
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", loops)})
	// The timeout bounds the build too, in wall-clock time: 30 s leave the
	// build room on a loaded machine, so that TestSum is running when the
	// run is stopped (issue 23; a CPU-time limit would not need it).
	rec, err := refactor.Run(context.Background(), file, buggy, refactor.Options{
		Goal: refactor.GoalRepair, Rounds: 1, Provider: openaiProvider(t, srv), Checker: checker(t, 30*time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rec); got != "time_limit_exceeded" {
		t.Fatalf("verdicts = %s", got)
	}
	if fb := rec.Rounds[0].Feedback; !strings.Contains(fb, "did not finish within 30s") || !strings.Contains(fb, "TestSum") {
		t.Errorf("feedback:\n%s", fb)
	}
}

func TestProviderFailureEndsTheSession(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	srv := openaitest.New(t, openaitest.Reply{Status: 401, Message: "bad key"})
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stop != refactor.StopProviderError || !strings.Contains(rec.Error, "FIXLOOP_TEST_KEY") || strings.Contains(rec.Error, "sk-test") {
		t.Errorf("stop %s, error %q", rec.Stop, rec.Error)
	}
}

func TestCancelledSession(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	// A reply that never comes: only the cancel ends the round.
	srv := openaitest.New(t, openaitest.Reply{Content: "slow", Release: make(chan struct{})})
	ctx, cancel := context.WithCancel(context.Background())
	chk := checker(t, roomy)
	rec, err := refactor.Run(ctx, file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: openaiProvider(t, srv), Checker: chk,
		Observer: refactor.Observer{RoundStart: func(int, int) { time.AfterFunc(200*time.Millisecond, cancel) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stop != refactor.StopCancelled || rec.Offered() {
		t.Errorf("stop %s, offered %v", rec.Stop, rec.Offered())
	}
}

func TestRulesProviderOffline(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: rules.New(), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Offered() || rec.Outcome.Fixed < 1 || rec.Outcome.New != 0 || strings.Contains(rec.Outcome.Text, `fmt.Sprintf("hello")`) {
		t.Fatalf("rules outcome: %+v (verdicts %s, stop %s)", rec.Outcome, verdicts(rec), rec.Stop)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: rules.New(), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := refactor.WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	got, err := refactor.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary().Final != rec.Summary().Final || got.Schema != refactor.SchemaVersion || got.Original != text {
		t.Errorf("round trip changed the record")
	}
	os.WriteFile(path, []byte(`{"schema": 99}`), 0o644)
	if _, err := refactor.ReadRecord(path); err == nil || !strings.Contains(err.Error(), "schema 99") {
		t.Errorf("a future schema must be refused: %v", err)
	}
}

func verdicts(rec *refactor.Record) string {
	var v []string
	for _, r := range rec.Rounds {
		v = append(v, string(r.Verdict))
	}
	return strings.Join(v, " ")
}

func sandboxedChecker(t *testing.T, sb gotest.Sandbox) *refactor.Checker {
	c := checker(t, roomy)
	c.Tester = gotest.NewSandboxed(nil, sb)
	return c
}

func TestCandidateThatAllocatesWithoutBound(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	buggy := replace(t, text, "for i := 0; i < len(xs); i++", "for i := 1; i < len(xs); i++")
	hog := replace(t, text, "\ttotal := 0\n", "\ttotal := 0\n\tvar hog [][]byte\n\tfor {\n\t\tb := make([]byte, 64<<20)\n\t\tfor j := range b {\n\t\t\tb[j] = 1\n\t\t}\n\t\thog = append(hog, b)\n\t}\n")
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", hog)})
	rec, err := refactor.Run(context.Background(), file, buggy, refactor.Options{
		Goal: refactor.GoalRepair, Rounds: 1, Provider: openaiProvider(t, srv),
		Checker: sandboxedChecker(t, gotest.Sandbox{MemoryLimit: 512 << 20, Isolate: true}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rec); got != "memory_limit_exceeded" {
		t.Fatalf("verdicts = %s; feedback:\n%s", got, rec.Rounds[0].Feedback)
	}
	if fb := rec.Rounds[0].Feedback; !strings.Contains(fb, "ran out of memory") {
		t.Errorf("feedback:\n%s", fb)
	}
}

func TestCandidateThatDeletesItsWorkingDirectory(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	wiper := replace(t, text, "import (\n", "import (\n\t\"os\"\n")
	wiper += "\nfunc init() {\n\tentries, _ := os.ReadDir(\".\")\n\tfor _, e := range entries {\n\t\tos.RemoveAll(e.Name())\n\t}\n}\n"
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", wiper)})
	_, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Rounds: 1, Provider: openaiProvider(t, srv),
		Checker: sandboxedChecker(t, gotest.CandidateSandbox()),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"calc.go", "calc_test.go", "go.mod"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(file), name)); err != nil {
			t.Errorf("the candidate's tests deleted the user's %s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != text {
		t.Error("the user's file changed")
	}
}

// TestRepairOutsideAModule: with no module there are no tests (a nil
// report); a candidate that builds is judged without panicking.
func TestRepairOutsideAModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	text := "package main\n\nfunc main() {}\n"
	os.WriteFile(file, []byte(text), 0o644)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", text+"\n// checked\n")})
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRepair, Rounds: 1, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rec); got != "accepted" || !rec.Offered() {
		t.Errorf("verdicts %q, offered %v", got, rec.Offered())
	}
}

// TestMovedTargetIsStillRemaining: a candidate that only moves the
// targeted alert (a line inserted above it) has not fixed it.
func TestMovedTargetIsStillRemaining(t *testing.T) {
	t.Parallel()
	file, text := calcModule(t)
	moved := replace(t, text, "// Greeting is a friendly greeting.\n", "// Greeting is a friendly greeting.\n// It says hello.\n")
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", moved)})
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Rounds: 1, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
		Scope: metrics.Scope{StartLine: 25, EndLine: 25},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rec); got != "alerts_remaining" || rec.Outcome.Solved || rec.Offered() {
		t.Errorf("verdicts %q, solved %v, offered %v", got, rec.Outcome.Solved, rec.Offered())
	}
	if fb := rec.Rounds[0].Feedback; !strings.Contains(fb, "S1039") {
		t.Errorf("the feedback does not name the remaining alert:\n%s", fb)
	}
}

package refactor_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/refactor/model/replay"
)

// goldenPath is a recorded refactor session on testdata/calc: a compile
// error in round 1, solved in round 2. Regenerate it with
// FIXLOOP_UPDATE_GOLDEN=1 go test -run TestGoldenSessionReplays ./refactor/
var goldenPath = filepath.Join("..", "testdata", "sessions", "calc-refactor.json")

// calcRepo copies testdata/calc into a temporary repository laid out as
// this one is (<root>/.git, <root>/testdata/calc), so that a session on it
// records the file's repository path, testdata/calc/calc.go, by which a
// replay finds it in any checkout.
func calcRepo(t *testing.T) (string, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "calc")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "calc"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "calc.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, string(text)
}

func recordGolden(t *testing.T) {
	file, text := calcRepo(t)
	broken := replace(t, text, `return fmt.Sprintf("hello")`, `return "hello" +`)
	fixed := replace(t, text, `return fmt.Sprintf("hello")`, `return "hello"`)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", broken), PromptTokens: 812, CompletionTokens: 301},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed), PromptTokens: 1240, CompletionTokens: 298},
	)
	rec, err := refactor.Run(context.Background(), file, text, refactor.Options{
		Goal: refactor.GoalRefactor, Provider: openaiProvider(t, srv), Checker: checker(t, roomy),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.RepoPath != "testdata/calc/calc.go" {
		t.Fatalf("repository path %q", rec.RepoPath)
	}
	if err := refactor.WriteRecord(goldenPath, rec); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenSessionReplays re-runs the golden session with the replay
// provider: the compiler, analyzers and tests run again on the recorded
// answers, and every per-round and per-session metric must come out as
// recorded.
func TestGoldenSessionReplays(t *testing.T) {
	if os.Getenv("FIXLOOP_UPDATE_GOLDEN") != "" {
		recordGolden(t)
	}
	want, err := refactor.ReadRecord(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	file, text := calcModule(t)
	if text != want.Original {
		t.Fatal("testdata/calc/calc.go no longer matches the golden session's original text; regenerate the golden record")
	}
	var replies []model.Reply
	for _, r := range want.Rounds {
		replies = append(replies, r.Reply)
	}
	// The recorded test timeout, or more: no recorded round timed out, so a
	// longer one changes nothing but leaves a loaded machine room (issue 23).
	got, err := refactor.Run(context.Background(), file, want.Original, refactor.Options{
		Goal: want.Goal, Rounds: want.Settings.Rounds, Scope: want.Scope,
		Provider: replay.New(replies, want.Model), Checker: checker(t, max(time.Duration(want.Settings.TestTimeoutMS)*time.Millisecond, roomy)),
		// The golden record predates minimisation and the stuck rules.
		Minimize: refactor.Minimize{Off: want.Settings.Minimize == nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rounds) != len(want.Rounds) {
		t.Fatalf("%d rounds, recorded %d", len(got.Rounds), len(want.Rounds))
	}
	for i := range want.Rounds {
		g, w := got.Rounds[i], want.Rounds[i]
		if g.Verdict != w.Verdict || g.Metrics != w.Metrics || g.Feedback != w.Feedback || g.Candidate != w.Candidate {
			t.Errorf("round %d: got %s %+v, recorded %s %+v", i+1, g.Verdict, g.Metrics, w.Verdict, w.Metrics)
		}
	}
	if got.Outcome != want.Outcome {
		t.Errorf("outcome: got %+v, recorded %+v", got.Outcome, want.Outcome)
	}
	// The conversation is reproduced too: prompts name the file by its
	// base name, so they do not depend on where the checkout is.
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("the replayed conversation differs from the recorded one")
	}
	if want.Rounds[0].Verdict != refactor.VerdictCompileError || !want.Outcome.Solved || want.Outcome.SolvedRound != 2 {
		t.Errorf("the golden session is not the documented one: %s, %+v", verdicts(want), want.Outcome)
	}
	// Round 1's candidate does not build: its alerts are not compared, so
	// nothing counts as fixed or new (the analyzers reported one vet alert
	// on the broken code and none of the baseline's).
	if m := want.Rounds[0].Metrics; m.Fixed != 0 || m.New != 0 || m.Compiles || want.Rounds[0].AlertsCompared() {
		t.Errorf("round 1 (does not build) metrics %+v", m)
	}
	if want.RepoPath != "testdata/calc/calc.go" {
		t.Errorf("the golden record names its file %q, not by its repository path", want.RepoPath)
	}
	// Anywhere in the file, not only in the (template-made) system prompt.
	if data, err := os.ReadFile(goldenPath); err != nil || strings.Contains(string(data), "sk-") {
		t.Errorf("the golden record holds a key (or cannot be read: %v)", err)
	}
}

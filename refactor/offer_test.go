package refactor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/replay"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// A toy language for the search, one statement per line:
//
//	ALERT m    a lint alert R1 with message m
//	NEW        a lint alert R2 ("new thing")
//	DECL v     declares v; USE v without a DECL v does not build
//	BREAK      test T2 fails
//
// Anything else is inert.
type toyTools struct{ lints, tests atomic.Int32 }

func (t *toyTools) Lint(_ context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	t.lints.Add(1)
	text := string(overlay[file])
	res := &runner.LintResult{Files: []string{file}}
	decl := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "DECL "); ok {
			decl[v] = true
		}
	}
	for i, l := range strings.Split(text, "\n") {
		a := runner.Alert{File: file, Line: i + 1, Column: 1, Source: "toylint"}
		switch {
		case strings.HasPrefix(l, "ALERT "):
			a.Code, a.Message = "R1", strings.TrimPrefix(l, "ALERT ")
		case l == "NEW":
			a.Code, a.Message = "R2", "new thing"
		case strings.HasPrefix(l, "USE ") && !decl[strings.TrimPrefix(l, "USE ")]:
			a.Source, a.Code, a.Message = "compiler", "undefined", "undefined: "+strings.TrimPrefix(l, "USE ")
		default:
			continue
		}
		res.Alerts = append(res.Alerts, a)
	}
	return res, nil
}

func (t *toyTools) Test(_ context.Context, file string, overlay map[string][]byte, _ time.Duration) (*runner.TestReport, error) {
	t.tests.Add(1)
	r := &runner.TestReport{Total: 2, Passed: 2, PassedTests: []string{"T1", "T2"}}
	if strings.Contains(string(overlay[file]), "BREAK") {
		r.Passed, r.Failed, r.PassedTests = 1, 1, []string{"T1"}
		r.Failures = []runner.TestFailure{{Test: "T2", Message: "got 1, want 2"}}
	}
	return r, nil
}

func (*toyTools) Invalidate(string) {}

const toyOriginal = `head
ALERT a
one
ALERT b
two
DECL x
three
USE x
four
five
tail
`

// toyVerbose fixes both alerts, and also renames x (two hunks that only
// build together), adds a comment and a new alert, and with breaks a line
// that breaks test T2.
func toyVerbose(breaks bool) string {
	s := strings.NewReplacer(
		"ALERT a\n", "fixed a\n",
		"ALERT b\n", "fixed b\n",
		"DECL x\n", "DECL y\n",
		"USE x\n", "USE y\n",
		"head\n", "// a comment\nhead\n",
		"tail\n", "tail\nNEW\n",
	).Replace(toyOriginal)
	if breaks {
		s = strings.Replace(s, "four\n", "four\nBREAK\n", 1)
	}
	return s
}

func runToy(t *testing.T, answers []string, opts Options) (*Record, *toyTools) {
	t.Helper()
	tools := &toyTools{}
	var replies []model.Reply
	for _, a := range answers {
		replies = append(replies, model.Reply{Content: "```go\n" + a + "```\n"})
	}
	opts.Goal = GoalRefactor
	if opts.Rounds == 0 {
		opts.Rounds = 3
	}
	if opts.Minimize.Share == 0 {
		// The toy tools take no time: the share of it is no bound to
		// test the search with (TestMinimizeShare tests it).
		opts.Minimize.Share = -1
	}
	opts.Provider = replay.New(replies, "scripted")
	opts.Checker = &Checker{Linter: tools, Tester: tools, TestTimeout: time.Minute}
	rec, err := Run(sandbox.Unconfined(context.Background()), "/toy/a.go", toyOriginal, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rec, tools
}

func reasons(o *Offered) map[string]int {
	n := map[string]int{}
	for _, d := range o.Dropped {
		n[d.Reason]++
	}
	return n
}

func TestMinimisedOffer(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(false)}, Options{})
	rd := rec.Rounds[0]
	// The model's view: the whole candidate, with its new alert.
	if rd.Verdict != VerdictAlertsRemaining || rd.Metrics.Fixed != 2 || rd.Metrics.New != 1 {
		t.Fatalf("round: %s %+v", rd.Verdict, rd.Metrics)
	}
	o := rd.Offered
	if o == nil {
		t.Fatalf("nothing offered; search %+v", rd.Search)
	}
	want := strings.NewReplacer("ALERT a\n", "fixed a\n", "ALERT b\n", "fixed b\n").Replace(toyOriginal)
	if o.Text != want {
		t.Errorf("offered:\n%s\nwant:\n%s", o.Text, want)
	}
	// Hand-computed: two changed lines, each one deletion and one addition.
	if m := o.Metrics; m.Fixed != 2 || m.New != 0 || m.LinesEdited != 4 || !m.KeepsTests {
		t.Errorf("offered metrics %+v", m)
	}
	if got := reasons(o); got[ReasonNoFix] != 3 || got[ReasonNewAlert] != 1 || len(o.Dropped) != 4 {
		t.Errorf("dropped %+v", o.Dropped)
	}
	if note := rd.HunksNote(); note != "4 of 6 hunks dropped: 3 no alert fixed, 1 adds an alert" {
		t.Errorf("note %q", note)
	}
	if rec.Outcome.Text != want || rec.Outcome.LinesEdited != 4 || rec.Outcome.New != 0 || rec.Outcome.HunksDropped != 4 {
		t.Errorf("outcome %+v", rec.Outcome)
	}
	if m := rec.ModelOutcome(); m.Round != 1 || m.New != 1 || m.LinesEdited != 10 {
		t.Errorf("model's outcome %+v", m)
	}
	if rd.Search.Bound != "" || len(rd.Search.Trials) > DefaultMinimizeChecks {
		t.Errorf("search %+v", rd.Search)
	}
	// The first guess (the fixes alone: without the comment, the new
	// alert and the rename, whose new name nothing else uses) was checked
	// while the candidate's tests ran; no other subset was.
	for i, tr := range rd.Search.Trials {
		if tr.Early != (i == 0) {
			t.Errorf("trial %d %v: early %v", i+1, tr.Keep, tr.Early)
		}
	}
	if tr := rd.Search.Trials[0]; !slices.Equal(tr.Keep, []int{1, 2}) || tr.Result != resultPass {
		t.Errorf("first trial %v %s, want the guess [1 2], passing", tr.Keep, tr.Result)
	}
	// Off, no precheck either.
	rec, tools := runToy(t, []string{toyVerbose(false)}, Options{Minimize: Minimize{Off: true}})
	if rec.Rounds[0].Search != nil || tools.lints.Load() != 2 {
		t.Errorf("minimisation off: search %+v, %d lint checks (want the baseline's and the candidate's)", rec.Rounds[0].Search, tools.lints.Load())
	}
}

func TestSalvagedOffer(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(true)}, Options{Rounds: 1})
	rd := rec.Rounds[0]
	if rd.Verdict != VerdictWrongAnswer || rd.Metrics.KeepsTests {
		t.Fatalf("round: %s %+v", rd.Verdict, rd.Metrics)
	}
	o := rd.Offered
	if o == nil || !o.Salvaged {
		t.Fatalf("nothing salvaged; search %+v", rd.Search)
	}
	if m := o.Metrics; m.Fixed != 2 || m.New != 0 || !m.KeepsTests || m.LinesEdited != 4 {
		t.Errorf("salvaged metrics %+v", m)
	}
	// The hint passed at once: no check tells which dropped hunk broke
	// the test, so none is blamed.
	if got := reasons(o); got[ReasonNoFix] != 4 || got[ReasonNewAlert] != 1 || len(o.Dropped) != 5 {
		t.Errorf("dropped %+v", o.Dropped)
	}
	if note := rd.HunksNote(); note != "salvaged, 5 of 7 hunks dropped: 4 no alert fixed, 1 adds an alert" {
		t.Errorf("note %q", note)
	}
	if !rec.Outcome.Salvaged || rec.Outcome.Round != 1 || rec.Outcome.Solved {
		t.Errorf("outcome %+v", rec.Outcome)
	}
	if m := rec.ModelOutcome(); m.Round != 0 {
		t.Errorf("the model's view offers round %d", m.Round)
	}
	// The model is told what broke, as without a salvage.
	if !strings.Contains(rd.Feedback, "T2") {
		t.Errorf("feedback lacks the broken test:\n%s", rd.Feedback)
	}
}

func TestMinimizeOff(t *testing.T) {
	rec, tools := runToy(t, []string{toyVerbose(false)}, Options{Rounds: 1, Minimize: Minimize{Off: true}})
	if rd := rec.Rounds[0]; rd.Offered != nil || rd.Search != nil {
		t.Errorf("searched with minimisation off: %+v", rd.Search)
	}
	if rec.Outcome.Text != toyVerbose(false) || rec.Outcome.Model != (FinalSummary{}) {
		t.Errorf("outcome %+v", rec.Outcome)
	}
	if n := tools.lints.Load(); n != 2 {
		t.Errorf("%d lint checks, want 2 (baseline, candidate)", n)
	}
}

func TestMinimizeBound(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(false)}, Options{Rounds: 1, Minimize: Minimize{MaxChecks: 1}})
	rd := rec.Rounds[0]
	// The hunks on the fixed alerts' lines, taken as needed, passed at
	// once: one check, within the bound.
	if rd.Search == nil || len(rd.Search.Trials) != 1 || rd.Search.Bound != "" {
		t.Fatalf("search %+v", rd.Search)
	}
	if rd.Offered == nil || rd.Offered.Metrics.LinesEdited != 4 {
		t.Errorf("offered %+v", rd.Offered)
	}
}

// TestMinimisedSessionReplays: a replay makes the recorded searches again,
// with either hunking; a record made before Minimize.Hunking existed (no
// hunking recorded) replays with the line diff's hunks.
func TestMinimisedSessionReplays(t *testing.T) {
	for _, c := range []struct {
		breaks  bool
		hunking string
		old     bool // the record's hunking cleared, as in older records
	}{
		{false, "", false}, {true, "", false},
		{false, HunkingLines, true}, {true, HunkingLines, true},
	} {
		t.Run(fmt.Sprintf("breaks=%v,hunking=%q", c.breaks, c.hunking), func(t *testing.T) {
			// "two" deleted with b's fix: one hunk of the line diff, two
			// aligned ones.
			cand := strings.Replace(toyVerbose(c.breaks), "fixed b\ntwo\n", "fixed b\n", 1)
			lines, _ := hunksOf(HunkingLines, toyOriginal, cand)
			if aligned, _ := hunksOf(HunkingAligned, toyOriginal, cand); len(aligned) == len(lines) {
				t.Fatalf("%d hunks either way", len(lines))
			}
			rec, _ := runToy(t, []string{cand, toyOriginal}, Options{Rounds: 2, Minimize: Minimize{Hunking: c.hunking}})
			if want := cmp.Or(c.hunking, HunkingAligned); rec.Settings.Minimize.Hunking != want {
				t.Errorf("recorded hunking %q, want %q", rec.Settings.Minimize.Hunking, want)
			}
			if s := rec.Rounds[0].Search; s == nil || len(s.Trials) == 0 {
				t.Fatalf("round 1's search %+v", s)
			}
			if c.old {
				m := *rec.Settings.Minimize
				m.Hunking = ""
				rec.Settings.Minimize = &m
			}
			got, err := Replay(context.Background(), rec, RecordedChecker(rec))
			if err != nil {
				t.Fatal(err)
			}
			if d := Diff(rec, got); len(d) > 0 {
				t.Errorf("replay differs:\n%s", strings.Join(d, "\n"))
			}
			if got.Outcome != rec.Outcome {
				t.Errorf("outcome %+v, recorded %+v", got.Outcome, rec.Outcome)
			}
		})
	}
}

func TestRepeatingModel(t *testing.T) {
	// The same broken answer three times, differing in line endings and
	// trailing blanks only: checked once, told twice, then the end.
	broken := strings.Replace(toyOriginal, "DECL x\n", "", 1)
	answers := []string{broken, strings.ReplaceAll(broken, "\n", "\r\n"), broken + "\n\n"}
	rec, tools := runToy(t, answers, Options{Rounds: 5})
	if rec.Stop != StopRepeating || len(rec.Rounds) != 3 {
		t.Fatalf("stop %s after %d rounds", rec.Stop, len(rec.Rounds))
	}
	if n := tools.lints.Load(); n != 2 {
		t.Errorf("%d lint checks, want 2 (baseline, round 1)", n)
	}
	for _, i := range []int{1, 2} {
		rd := rec.Rounds[i]
		if rd.RepeatOf != 1 || rd.Verdict != VerdictCompileError || !strings.Contains(rd.Feedback, "identical to your answer in round 1") {
			t.Errorf("round %d: repeat of %d, %s, feedback %q", i+1, rd.RepeatOf, rd.Verdict, rd.Feedback)
		}
	}
	if rec.Settings.Stuck == nil || rec.Settings.Stuck.Repeats != DefaultStuckRepeats {
		t.Errorf("recorded stuck rules %+v", rec.Settings.Stuck)
	}
}

func TestNoProgress(t *testing.T) {
	// Three different answers that each leave the same alert: the same
	// failing feedback three times in a row.
	var answers []string
	for i := range 4 {
		answers = append(answers, strings.Replace(toyOriginal, "one\n", fmt.Sprintf("one %d\n", i), 1))
	}
	rec, _ := runToy(t, answers, Options{Rounds: 4})
	if rec.Stop != StopNoProgress || len(rec.Rounds) != 3 {
		t.Errorf("stop %s after %d rounds, want no_progress after 3", rec.Stop, len(rec.Rounds))
	}
	rec, _ = runToy(t, answers, Options{Rounds: 4, Stuck: Stuck{SameFeedback: -1}})
	if rec.Stop != StopRounds || len(rec.Rounds) != 4 {
		t.Errorf("with the rule off: stop %s after %d rounds", rec.Stop, len(rec.Rounds))
	}
}

func TestHint(t *testing.T) {
	s := &session{rec: &Record{Original: toyOriginal}}
	cand := toyVerbose(false)
	hunks := metrics.Hunks(toyOriginal, cand)
	sr := &subsets{s: s, hunks: hunks}
	lines := func(hs []int) []int {
		var out []int
		for _, i := range hs {
			out = append(out, hunks[i].ALine+1)
		}
		return out
	}
	fixed := []runner.Alert{{Line: 2}, {Line: 4}}
	if got := lines(sr.hint(fixed, false)); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("needed hunks at lines %v, want 2 and 4", got)
	}
	// The comment inserted above line 1 is a guess only when insertions
	// count, for an alert on line 1.
	if got := lines(sr.hint([]runner.Alert{{Line: 1}}, true)); !slices.Equal(got, []int{1}) {
		t.Errorf("guessed hunks at lines %v, want the insertion before 1", got)
	}
	if got := sr.hint([]runner.Alert{{Line: 1}}, false); len(got) != 0 {
		t.Errorf("an insertion taken as needed: %v", got)
	}
}

// TestSalvageFixAndNewAlert: a candidate that fixes one alert and adds
// another improves nothing whole, so it cannot be offered; its fix alone
// can.
func TestSalvageFixAndNewAlert(t *testing.T) {
	cand := strings.NewReplacer("ALERT a\n", "fixed a\n", "tail\n", "tail\nNEW\n").Replace(toyOriginal)
	rec, _ := runToy(t, []string{cand}, Options{Rounds: 1})
	rd := rec.Rounds[0]
	if m := rd.Metrics; m.Fixed != 1 || m.New != 1 {
		t.Fatalf("round metrics %+v", m)
	}
	o := rd.Offered
	if o == nil || !o.Salvaged || o.Metrics.Fixed != 1 || o.Metrics.New != 0 || o.Metrics.LinesEdited != 2 {
		t.Fatalf("offered %+v", o)
	}
	if rec.Outcome.Round != 1 || !rec.Outcome.Salvaged || rec.ModelOutcome().Round != 0 {
		t.Errorf("outcome %+v, model's %+v", rec.Outcome, rec.ModelOutcome())
	}
}

// TestMinimizeShare: a session's searches take at most their share of its
// other time, but for the first search's free check: with no share to
// speak of, round 1's search makes one check, and round 2's none.
func TestMinimizeShare(t *testing.T) {
	second := strings.Replace(toyVerbose(false), "// a comment\n", "// another comment\n", 1)
	rec, _ := runToy(t, []string{toyVerbose(false), second}, Options{Rounds: 2, Minimize: Minimize{Share: 1e-12}})
	if len(rec.Rounds) != 2 {
		t.Fatalf("%d rounds", len(rec.Rounds))
	}
	if s := rec.Rounds[0].Search; s == nil || len(s.Trials) == 0 || len(s.Trials) > firstFreeChecks {
		t.Errorf("round 1's search %+v, want the free check", s)
	}
	if s := rec.Rounds[1].Search; s != nil {
		t.Errorf("round 2 searched with no share left: %+v", s)
	}
	if rec.Settings.Minimize == nil || rec.Settings.Minimize.Share != 1e-12 {
		t.Errorf("recorded %+v", rec.Settings.Minimize)
	}
}

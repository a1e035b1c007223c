package refactor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/minimize"
	"github.com/fixloop/fixloop/runner"
)

// Minimize configures how a round's candidate is cut down to the hunks of
// its diff (against the original) that help, before it is offered.
type Minimize struct {
	// Off offers the model's candidates whole, as they came.
	Off bool `json:"off,omitempty"`
	// MaxChecks bounds the subsets checked per round; 0 means
	// DefaultMinimizeChecks.
	MaxChecks int `json:"max_checks,omitempty"`
	// Budget bounds the time a round's search may take; 0 means
	// DefaultMinimizeBudget.
	Budget time.Duration `json:"budget_ns,omitempty"`
	// Share bounds the time of all of a session's searches, as a share
	// of the session's other time (the model's answers and the checks of
	// the candidates): each search may take what is left of it. 0 means
	// DefaultMinimizeShare; a negative share, no such bound.
	Share float64 `json:"share,omitempty"`
	// Hunking is how a candidate's diff is cut into hunks, and so what a
	// record's trials index: HunkingAligned (the default for a session),
	// or HunkingLines, which a record without Hunking used.
	Hunking string `json:"hunking,omitempty"`
}

// The hunkings of Minimize.
const (
	// HunkingLines cuts the diff into the line diff's changes, and its
	// search guesses no extras.
	HunkingLines = "lines"
	// HunkingAligned cuts each change further where its lines do not
	// correspond (metrics.AlignedHunks), and its search first tries the
	// candidate without what looks like a verbose model's extras:
	// comments, moves and renames nothing else needs.
	HunkingAligned = "aligned"
)

// hunking is Hunking with its default.
func (m Minimize) hunking() string {
	if m.Hunking == "" {
		return HunkingAligned
	}
	return m.Hunking
}

// hunksOf cuts the diff of original and candidate into hunks as hunking
// says; kinds is nil for HunkingLines.
func hunksOf(hunking, original, candidate string) ([]metrics.Hunk, []metrics.HunkKind) {
	if hunking == HunkingLines {
		return metrics.Hunks(original, candidate), nil
	}
	return metrics.AlignedHunks(original, candidate)
}

// The defaults of Minimize. The share keeps a session within 1.5 times
// its time without minimisation, however fast the model answers.
const (
	DefaultMinimizeChecks = 12
	DefaultMinimizeBudget = 2 * time.Minute
	DefaultMinimizeShare  = 0.4
)

// recorded is m with its defaults filled in, as a record keeps it.
func (m Minimize) recorded() *Minimize {
	l := m.limits()
	m.MaxChecks, m.Budget, m.Share, m.Hunking = l.MaxChecks, l.Budget, m.share(), m.hunking()
	return &m
}

// share is Share with its default.
func (m Minimize) share() float64 {
	if m.Share == 0 {
		return DefaultMinimizeShare
	}
	return m.Share
}

// firstFreeChecks are the checks of a session's first search that the
// share does not bound, so that a model that answers at once still gets
// its first candidate cut down.
const firstFreeChecks = 1

// searchBudget is what the share leaves for a search now: the share of
// the session's time so far that was not spent searching (the baseline's
// check included when the caller made it), less the time searches took;
// or 0 and false with no share bound.
func (s *session) searchBudget() (time.Duration, bool) {
	share := s.opts.Minimize.share()
	if share < 0 {
		return 0, false
	}
	other := time.Since(s.start) - s.searched
	if s.opts.Baseline != nil {
		other += time.Duration(s.opts.Baseline.WallMS) * time.Millisecond
	}
	return time.Duration(share*float64(other)) - s.searched, true
}

// limits returns the search's bounds.
func (m Minimize) limits() minimize.Limits {
	l := minimize.Limits{MaxChecks: m.MaxChecks, Budget: m.Budget}
	if l.MaxChecks <= 0 {
		l.MaxChecks = DefaultMinimizeChecks
	}
	if l.Budget <= 0 {
		l.Budget = DefaultMinimizeBudget
	}
	return l
}

// Offered is what a round offers the user when it is not the model's
// candidate whole: the subset of the candidate's hunks that keeps what the
// candidate achieved (minimised), or, for a candidate that broke a test or
// the build, a subset that keeps the tests and fixes alerts (salvaged).
type Offered struct {
	// Text is the original with the kept hunks applied.
	Text string `json:"text"`
	// Salvaged is set when the whole candidate could not be offered.
	Salvaged bool         `json:"salvaged,omitempty"`
	Check    *Check       `json:"check"`
	Metrics  RoundMetrics `json:"metrics"`
	// Kept lists the hunks of the candidate's diff (see [Search]) that the
	// offered text applies, Dropped the others, with why.
	Kept    []int     `json:"kept"`
	Dropped []Dropped `json:"dropped,omitempty"`
}

// Search is a round's search of its candidate's hunks: recorded whether or
// not it found something to offer, so that a replay makes the same checks.
type Search struct {
	// Salvage is set when the whole candidate could not be offered and the
	// search looked for a part that could.
	Salvage bool `json:"salvage,omitempty"`
	// Hunks counts the hunks of the candidate's diff against the original.
	Hunks int `json:"hunks"`
	// Trials are the subsets checked, in order.
	Trials []Trial `json:"trials,omitempty"`
	// Bound names the limit that stopped the search early ("checks",
	// "time"); "" when it finished.
	Bound string `json:"bound,omitempty"`
	MS    int64  `json:"ms"`
}

// Dropped is a hunk of the candidate left out of what is offered.
type Dropped struct {
	Hunk int `json:"hunk"`
	// Line is the first line of the original it changes (1-based; for an
	// insertion, the line it goes before), Lines how many it removes and
	// Added how many it adds.
	Line   int    `json:"line"`
	Lines  int    `json:"lines"`
	Added  int    `json:"added"`
	Reason string `json:"reason"`
}

// Why hunks are dropped, and why a subset failed.
const (
	ReasonNoFix      = "no alert fixed" // the others keep every fix without it
	ReasonNewAlert   = "adds an alert"
	ReasonBreaksTest = "breaks a test"
	ReasonNoBuild    = "does not build"
	reasonFixesLess  = "fixes less"
	resultPass       = "pass"
)

// Trial is one subset checked during a search.
type Trial struct {
	Keep []int `json:"keep"`
	// Result is "pass" or why the subset failed.
	Result string `json:"result"`
	// Check is its check: the linters', with tests only when the linters
	// did not already reject it.
	Check *Check `json:"check"`
	// Early is set when the subset was checked while the candidate's
	// tests ran, before the search asked for it (see precheck).
	Early bool `json:"early,omitempty"`
}

// HunksNote says what the round's minimisation dropped, for people: "2 of
// 7 hunks dropped: no alert fixed", "3 of 7 hunks dropped: 2 no alert
// fixed, 1 adds an alert", "salvaged, ..."; "" when nothing was dropped.
func (r *Round) HunksNote() string {
	o := r.Offered
	if o == nil || len(o.Dropped) == 0 || r.Search == nil {
		return ""
	}
	var reasons []string
	n := map[string]int{}
	for _, d := range o.Dropped {
		if n[d.Reason] == 0 {
			reasons = append(reasons, d.Reason)
		}
		n[d.Reason]++
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = r
		if len(reasons) > 1 {
			parts[i] = fmt.Sprintf("%d %s", n[r], r)
		}
	}
	note := fmt.Sprintf("%d of %d hunks dropped: %s", len(o.Dropped), r.Search.Hunks, strings.Join(parts, ", "))
	if o.Salvaged {
		note = "salvaged, " + note
	}
	return note
}

// OfferedText is the text the round offers: its Offered text, else its
// candidate.
func (r *Round) OfferedText() string {
	if r.Offered != nil {
		return r.Offered.Text
	}
	return r.Candidate
}

// OfferedMetrics are the measures of what the round offers.
func (r *Round) OfferedMetrics() RoundMetrics {
	if r.Offered != nil {
		return r.Offered.Metrics
	}
	return r.Metrics
}

// offer searches the round's candidate for the hunks that help and sets
// rd.Offered: a minimised candidate when the whole one may be offered, a
// salvaged one when it may not but some of its hunks may. Offered stays nil
// when minimisation is off, when nothing could be dropped, and when
// nothing could be salvaged; rd.Search records any search made.
func (s *session) offer(ctx context.Context, rd *Round) {
	if s.opts.Minimize.Off || rd.Check == nil || rd.Candidate == s.rec.Original || ctx.Err() != nil {
		return
	}
	if d, ok := s.opts.Provider.(deterministic); ok && d.Deterministic() {
		return // the tools' own fixes (rules): one edit per alert already
	}
	whole := s.eligible(rd)
	if !whole && rd.Metrics.Compiles && rd.Metrics.KeepsTests && rd.Metrics.Fixed == 0 {
		return // it builds and keeps the tests but fixes nothing: no part will
	}
	hunks, kinds := hunksOf(s.opts.Minimize.hunking(), s.rec.Original, rd.Candidate)
	if len(hunks) == 0 || whole && len(hunks) == 1 {
		return
	}
	lim := s.opts.Minimize.limits()
	if n, ok := s.opts.replayChecks[rd.Round]; ok {
		// A replay makes the checks the record made, no more: a bound of
		// time there is a bound of checks here.
		if n == 0 {
			return
		}
		lim = minimize.Limits{MaxChecks: n}
	} else if left, ok := s.searchBudget(); ok {
		if !s.hasSearched {
			lim.Free = firstFreeChecks
		}
		if left <= 0 && lim.Free == 0 {
			return // the session's share of search time is spent
		}
		lim.Budget = min(lim.Budget, max(left, time.Nanosecond))
		// A subset's check costs at least what the candidate's linters
		// took: a check the budget would cut off is not started.
		lim.Cost = time.Duration(rd.Check.LintMS) * time.Millisecond
	}
	start := time.Now()
	defer func() { s.searched, s.hasSearched = s.searched+time.Since(start), true }()
	sr := &subsets{s: s, rd: rd, hunks: hunks, kinds: kinds, salvage: !whole, byKey: map[string]int{}}
	var (
		res minimize.Result
		err error
	)
	if whole {
		sr.want = s.wantOf(rd.Candidate, rd.Check)
		// The hunks on the lines of the targets it fixed are taken as
		// needed, those that add an alert as droppable: the others are
		// searched.
		hint := sr.hints(sr.want.fixed)
		res, err = minimize.Minimize(ctx, len(hunks), hint, sr.test, lim)
	} else {
		// Find a part that may be offered, then reduce it as a whole
		// candidate is: keeping what that part achieves.
		res, err = minimize.Find(ctx, len(hunks), minimize.Hint{Try: sr.hint(s.rec.Targets, true)}, sr.test, lim)
		if err == nil && res.Found() && res.Bound == "" {
			found := sr.trials[sr.byKey[minimize.Key(res.Keep)]]
			sr.salvage = false
			sr.want = s.wantOf(metrics.Apply(s.rec.Original, rd.Candidate, hunks, res.Keep), found.Check)
			need := sr.hints(sr.want.fixed)
			more, err2 := minimize.Reduce(ctx, res.Keep, need, sr.test, lim.Less(res, time.Since(start)))
			sr.salvage = true
			res, err = minimize.Result{Keep: more.Keep, Checks: res.Checks + more.Checks, Bound: more.Bound}, err2
		}
	}
	rd.Search = &Search{Salvage: !whole, Hunks: len(hunks), Trials: sr.trials, Bound: string(res.Bound), MS: time.Since(start).Milliseconds()}
	if err != nil {
		s.logger.Warn("searching the candidate's hunks failed", "round", rd.Round, "error", err)
		return
	}
	if !res.Found() || len(res.Keep) == len(hunks) {
		return
	}
	i, ok := sr.byKey[minimize.Key(res.Keep)]
	if !ok || sr.trials[i].Result != resultPass {
		return
	}
	kept := sr.trials[i]
	text := metrics.Apply(s.rec.Original, rd.Candidate, hunks, res.Keep)
	rd.Offered = &Offered{
		Text: text, Salvaged: !whole, Check: kept.Check, Metrics: s.measure(text, kept.Check),
		Kept: res.Keep, Dropped: sr.dropped(res.Keep),
	}
}

// want is what a subset must keep of the whole candidate.
type want struct {
	fixed  []runner.Alert // targets the candidate fixed
	maxNew int
	// newKeys are the keys of the candidate's new alerts, with their
	// counts: with the aligned hunking, a subset's new alerts must be
	// among them (not only as many).
	newKeys map[metrics.Key]int
	passed  []string // tests that passed with the candidate
}

// wantOf is what a minimised candidate keeps: every test that passed, at
// least the targets fixed, and no new alert but the candidate's.
func (s *session) wantOf(text string, chk *Check) want {
	cmp := metrics.Compare(s.rec.Original, s.rec.Baseline.Alerts, text, chk.Alerts)
	var fixed []runner.Alert
	for _, a := range cmp.FixedAlerts {
		if IsTarget(a, s.rec.Targets) {
			fixed = append(fixed, a)
		}
	}
	w := want{fixed: fixed, maxNew: cmp.New, passed: chk.passed()}
	if s.opts.Minimize.hunking() != HunkingLines {
		w.newKeys = map[metrics.Key]int{}
		for _, a := range cmp.NewAlerts {
			w.newKeys[metrics.KeyOf(a)]++
		}
	}
	return w
}

// newBeyond reports whether alerts, a subset's new alerts, are more than
// the candidate's: more of them, or (with the aligned hunking) one the
// candidate did not add.
func (w want) newBeyond(alerts []runner.Alert) bool {
	if len(alerts) > w.maxNew {
		return true
	}
	if w.newKeys == nil {
		return false
	}
	left := maps.Clone(w.newKeys)
	for _, a := range alerts {
		k := metrics.KeyOf(a)
		if left[k] == 0 {
			return true
		}
		left[k]--
	}
	return false
}

// measure computes the round metrics of a checked text, as judge does.
func (s *session) measure(text string, chk *Check) RoundMetrics {
	keeps, _ := keepsTests(s.baselinePassed, chk)
	cmp := metrics.Compare(s.rec.Original, s.rec.Baseline.Alerts, text, chk.Alerts)
	m := RoundMetrics{
		Alerts: len(chk.Alerts), Fixed: countIn(cmp.FixedAlerts, s.rec.Targets), New: cmp.New,
		LinesEdited: cmp.LinesEdited, TestsPassed: chk.TestsPassed(), TestsTotal: chk.TestsTotal(),
		KeepsTests: keeps, Compiles: chk.Compiles(),
	}
	if !m.Compiles {
		m.Fixed, m.New = 0, 0
	}
	return m
}

// subsets checks subsets of one round's hunks.
type subsets struct {
	s     *session
	rd    *Round
	hunks []metrics.Hunk
	kinds []metrics.HunkKind // nil for HunkingLines
	// candidateNew caches newLines.
	candidateNew map[int]bool
	want         want
	salvage      bool
	trials       []Trial
	byKey        map[string]int // index in trials
}

// hint lists the hunks expected to matter: those that change the line of
// one of targets, and with insertions, those inserted beside such a line
// (a docstring after it, a comment above it: which of them fixes an alert
// depends on the language, so they are only guesses to try, not hunks a
// search may take as needed).
func (sr *subsets) hint(targets []runner.Alert, insertions bool) []int {
	lines := map[int]bool{}
	for _, a := range targets {
		lines[a.Line-1] = true
	}
	var out []int
	for i, h := range sr.hunks {
		first, last := h.ALine, h.ALine+h.ALines-1
		if h.ALines == 0 {
			if !insertions {
				continue
			}
			first, last = h.ALine-1, h.ALine
		}
		for l := first; l <= last; l++ {
			if lines[l] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// hints are a minimisation's hints, fixed being the targets the candidate
// (or the part of it found) fixed: the hunks on their lines are needed,
// those that add an alert droppable. With the aligned hunking, the search
// first tries the candidate without its extras (see extras.guess), keeping
// the hunks on or beside the fixed targets' lines (a docstring after its
// function's line) and those on the lines of the original's compile
// errors.
func (sr *subsets) hints(fixed []runner.Alert) minimize.Hint {
	h := minimize.Hint{Need: sr.hint(fixed, false), Drop: sr.adding()}
	if sr.kinds == nil {
		return h
	}
	s := sr.s
	keep := append(sr.hint(fixed, true), sr.hint(s.rec.Baseline.CompileErrors, false)...)
	x := classify(s.rec.File, s.rec.Original, sr.rd.Candidate, sr.hunks, sr.kinds)
	h.Try = x.guess(sr.hunks, keep, h.Drop)
	if h.Try == nil {
		h.Try = []int{}
	}
	return h
}

// newLines are the lines of the whole candidate (0-based) that hold one
// of its new alerts; none when it does not build, so that its alerts do
// not compare. Computed once per search.
func (sr *subsets) newLines() map[int]bool {
	if sr.candidateNew == nil {
		sr.candidateNew = map[int]bool{}
		if sr.rd.Metrics.Compiles {
			cmp := metrics.Compare(sr.s.rec.Original, sr.s.rec.Baseline.Alerts, sr.rd.Candidate, sr.rd.Check.Alerts)
			for _, a := range cmp.NewAlerts {
				sr.candidateNew[a.Line-1] = true
			}
		}
	}
	return sr.candidateNew
}

// adding lists the hunks that hold a line of a new alert of the whole
// candidate (when it builds, so that its alerts compare).
func (sr *subsets) adding() []int {
	lines := sr.newLines()
	var out []int
	for i, h := range sr.hunks {
		for l := h.BLine; l < h.BLine+h.BLines; l++ {
			if lines[l] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// test checks the version made of the hunks keep, linters first and the
// tests only when they pass it.
func (sr *subsets) test(ctx context.Context, keep []int) (bool, error) {
	s := sr.s
	if f := s.opts.Observer.Searching; f != nil {
		f(sr.rd.Round, len(sr.trials)+1)
	}
	text := metrics.Apply(s.rec.Original, sr.rd.Candidate, sr.hunks, keep)
	if chk := s.pre.take(text); chk != nil {
		// Checked already, while the candidate's tests ran.
		tr := Trial{Keep: keep, Check: chk, Early: true}
		if tr.Result = sr.judgeLint(text, chk); tr.Result == "" {
			tr.Result = sr.judgeTests(text, chk)
		}
		return sr.record(tr), nil
	}
	// The tests start with the linters, as in a candidate's check, and
	// stop when the linters already reject the subset. A check cut short
	// (the budget ran out) is not recorded.
	cctx := runner.WithCandidate(ctx)
	tctx, stopTests := context.WithCancel(cctx)
	defer stopTests()
	tests := make(chan testRun, 1)
	go func() { tests <- s.opts.Checker.runTests(tctx, s.rec.File, text) }()
	chk, err := s.opts.Checker.lint(cctx, s.rec.File, text)
	if err != nil {
		return false, err
	}
	tr := Trial{Keep: keep, Check: chk}
	if tr.Result = sr.judgeLint(text, chk); tr.Result != "" {
		stopTests()
	} else {
		run := <-tests
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if err := chk.addTests(run); err != nil {
			return false, err
		}
		tr.Result = sr.judgeTests(text, chk)
	}
	return sr.record(tr), nil
}

// record keeps a checked subset's trial and reports whether it passed.
func (sr *subsets) record(tr Trial) bool {
	sr.trials = append(sr.trials, tr)
	sr.byKey[minimize.Key(tr.Keep)] = len(sr.trials) - 1
	return tr.Result == resultPass
}

// judgeLint says why a subset fails on its linters' check alone, or "".
func (sr *subsets) judgeLint(text string, chk *Check) string {
	s := sr.s
	if !chk.Compiles() {
		return ReasonNoBuild
	}
	cmp := metrics.Compare(s.rec.Original, s.rec.Baseline.Alerts, text, chk.Alerts)
	if sr.salvage {
		if countIn(cmp.FixedAlerts, s.rec.Targets)-cmp.New <= 0 {
			if cmp.New > 0 {
				return ReasonNewAlert
			}
			return reasonFixesLess
		}
		return ""
	}
	for _, f := range sr.want.fixed {
		if !IsTarget(f, cmp.FixedAlerts) {
			return reasonFixesLess
		}
	}
	if sr.want.newBeyond(cmp.NewAlerts) {
		return ReasonNewAlert
	}
	return ""
}

// judgeTests says whether a subset that passed its lint check passes its
// tests: "pass", or why not.
func (sr *subsets) judgeTests(text string, chk *Check) string {
	if !chk.Compiles() {
		return ReasonNoBuild
	}
	need := sr.want.passed
	if sr.salvage {
		need = sr.s.baselinePassed
	}
	if ok, _ := keepsTests(need, chk); !ok {
		return ReasonBreaksTest
	}
	if sr.salvage && !sr.s.improves(sr.s.measure(text, chk), false) {
		return reasonFixesLess
	}
	return resultPass
}

// dropped lists the hunks not in keep, with the reason each is left out:
// it adds an alert (a new alert of the candidate is on its lines); in a
// salvage, it breaks what the candidate broke (every checked subset with
// it failed that way); else it fixed nothing the others do not.
func (sr *subsets) dropped(keep []int) []Dropped {
	newLines := sr.newLines()
	var out []Dropped
	for i, h := range sr.hunks {
		if slices.Contains(keep, i) {
			continue
		}
		d := Dropped{Hunk: i, Line: h.ALine + 1, Lines: h.ALines, Added: h.BLines, Reason: ReasonNoFix}
		for l := h.BLine; l < h.BLine+h.BLines; l++ {
			if newLines[l] {
				d.Reason = ReasonNewAlert
			}
		}
		if d.Reason == ReasonNoFix && sr.salvage {
			if r := sr.failedWith(i); r != "" {
				d.Reason = r
			}
		}
		out = append(out, d)
	}
	return out
}

// failedWith returns how hunk i is known to break what the candidate
// broke: a checked subset with i failed by a test or the build, and
// without i it is part of a subset that passed (or is empty). Else "".
func (sr *subsets) failedWith(i int) string {
	var passing [][]int
	for _, t := range sr.trials {
		if t.Result == resultPass {
			passing = append(passing, t.Keep)
		}
	}
	failed := append([]Trial{{Keep: minimize.All(len(sr.hunks)), Result: sr.candidateFailure()}}, sr.trials...)
	for _, t := range failed {
		if !slices.Contains(t.Keep, i) || t.Result != ReasonBreaksTest && t.Result != ReasonNoBuild {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(t.Keep), func(h int) bool { return h == i })
		for _, p := range passing {
			if subset(rest, p) {
				return t.Result
			}
		}
	}
	return ""
}

// candidateFailure is how the whole candidate failed.
func (sr *subsets) candidateFailure() string {
	switch {
	case !sr.rd.Metrics.Compiles:
		return ReasonNoBuild
	case !sr.rd.Metrics.KeepsTests:
		return ReasonBreaksTest
	}
	return ""
}

// subset reports whether every element of a is in b.
func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

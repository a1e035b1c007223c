package refactor

import (
	"context"
	"slices"

	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/runner"
)

// precheck is a check of the first subset a round's search is expected to
// try, started as soon as the candidate's linters are done, while its
// tests still run: the search that follows takes its answer instead of
// checking that subset again, so the guess costs little wall time.
type precheck struct {
	text   string
	cancel context.CancelFunc
	done   chan struct{}
	chk    *Check
	err    error
}

// startPrecheck starts the check of the subset a minimisation of code
// would try first, lint being the candidate's linters' check; nil when
// no search will be made or nothing would be dropped. It guesses that
// the candidate keeps the tests (a salvage tries other subsets first).
func (s *session) startPrecheck(ctx context.Context, n int, code string, lint *Check) *precheck {
	m := s.opts.Minimize
	if m.Off || m.hunking() == HunkingLines || code == s.rec.Original || !lint.Compiles() {
		return nil
	}
	if d, ok := s.opts.Provider.(deterministic); ok && d.Deterministic() {
		return nil
	}
	if checks, ok := s.opts.replayChecks[n]; ok && checks == 0 {
		return nil // the record's round made no check
	}
	hunks, kinds := hunksOf(m.hunking(), s.rec.Original, code)
	if len(hunks) < 2 {
		return nil
	}
	rd := &Round{Candidate: code, Check: lint, Metrics: RoundMetrics{Compiles: true}}
	sr := &subsets{s: s, rd: rd, hunks: hunks, kinds: kinds}
	h := sr.hints(s.wantOf(code, lint).fixed)
	keep := append(slices.Clone(h.Need), h.Try...)
	slices.Sort(keep)
	keep = slices.Compact(keep)
	if len(keep) == 0 || len(keep) == len(hunks) {
		return nil
	}
	p := &precheck{text: metrics.Apply(s.rec.Original, code, hunks, keep), done: make(chan struct{})}
	var pctx context.Context
	pctx, p.cancel = context.WithCancel(runner.WithCandidate(ctx))
	go func() {
		defer close(p.done)
		p.chk, p.err = s.opts.Checker.check(pctx, s.rec.File, p.text, nil)
	}()
	return p
}

// take returns the precheck's check of text when it checked that text and
// finished; nil otherwise.
func (p *precheck) take(text string) *Check {
	if p == nil || p.text != text {
		return nil
	}
	<-p.done
	if p.err != nil {
		return nil
	}
	return p.chk
}

// stop cancels the precheck and waits for it to end.
func (p *precheck) stop() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}

package refactor

import (
	"fmt"
	"strings"
)

// Stuck configures when a session that goes in circles ends. Zero values
// mean the defaults; a negative value turns the rule off.
type Stuck struct {
	// Repeats is how many answers identical to an earlier round's (after
	// normalising line endings and trailing blanks) end the session with
	// StopRepeating; 0 means DefaultStuckRepeats. A repeated answer is not
	// checked again: the model is told so, with the earlier check.
	Repeats int `json:"repeats,omitempty"`
	// SameFeedback is how many rounds in a row with the same failing
	// feedback end the session with StopNoProgress; 0 means
	// DefaultStuckSameFeedback.
	SameFeedback int `json:"same_feedback,omitempty"`
}

// The defaults of Stuck.
const (
	DefaultStuckRepeats      = 2
	DefaultStuckSameFeedback = 3
)

// recorded is s with its defaults filled in, as a record keeps it.
func (s Stuck) recorded() *Stuck {
	if s.Repeats == 0 {
		s.Repeats = DefaultStuckRepeats
	}
	if s.SameFeedback == 0 {
		s.SameFeedback = DefaultStuckSameFeedback
	}
	return &s
}

// repeatNote heads the feedback to a repeated answer.
const repeatNote = "Your answer is identical to your answer in round %d, so it was not checked again. Its results were these; change your approach.\n\n"

// stuckState follows a session's answers and feedback.
type stuckState struct {
	seen     map[string]int // normalised candidate -> the round that checked it
	repeats  int
	lastSig  string
	sameRuns int
}

// normalise is a candidate as compared for repeats: "\r\n" as "\n", no
// trailing blanks on any line, no blank lines at the end.
func normalise(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// repeatOf returns the round that already checked code, or 0.
func (st *stuckState) repeatOf(code string) int {
	return st.seen[normalise(code)]
}

// checked notes that round n checked code.
func (st *stuckState) checked(n int, code string) {
	if st.seen == nil {
		st.seen = make(map[string]int)
	}
	k := normalise(code)
	if _, ok := st.seen[k]; !ok {
		st.seen[k] = n
	}
}

// repeated fills rd, an answer identical to round earlier's, from that
// round: the same candidate, check, verdict and measures.
func (s *session) repeated(rd *Round, earlier int, code string, d *promptData) {
	s.stuck.repeats++
	prev := &s.rec.Rounds[earlier-1]
	rd.Candidate, rd.Check, rd.RepeatOf = code, prev.Check, earlier
	if rd.Check == nil {
		rd.Verdict = VerdictNoCode
		return
	}
	s.judge(rd, d)
}

// stop returns the stop reason of a round that was not accepted when the
// session is stuck, else "".
func (st *stuckState) stop(cfg Stuck, rd *Round, d *promptData) Stop {
	c := cfg.recorded()
	if c.Repeats > 0 && st.repeats >= c.Repeats {
		return StopRepeating
	}
	sig := fmt.Sprintf("%s|%v|%v|%v|%v|%v|%v", rd.Verdict, d.Remaining, d.New, d.CompileErrors, d.Failures, d.TimedOut, d.ExtractFeedback)
	if sig == st.lastSig {
		st.sameRuns++
	} else {
		st.lastSig, st.sameRuns = sig, 1
	}
	if c.SameFeedback > 0 && st.sameRuns >= c.SameFeedback {
		return StopNoProgress
	}
	return ""
}

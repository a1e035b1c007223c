package refactor

import (
	"fmt"
	"strings"
)

// HunksNote says what minimisation left out of the offered result, for
// people: the offered round's note ("salvaged, 5 of 7 hunks dropped: 4 no
// alert fixed, 1 adds an alert"; see [Round.HunksNote]), else what the
// outcome counts; "" when nothing is offered or the model's candidate is
// offered whole.
func (r *Record) HunksNote() string {
	o := r.Outcome
	if o.Round <= 0 {
		return ""
	}
	for i := range r.Rounds {
		if rd := &r.Rounds[i]; rd.Round == o.Round {
			if note := rd.HunksNote(); note != "" {
				return note
			}
			break
		}
	}
	var parts []string
	if o.Salvaged {
		parts = append(parts, "salvaged")
	}
	if o.HunksDropped > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d hunks dropped", o.HunksDropped, o.Hunks))
	}
	return strings.Join(parts, ", ")
}

// StuckNote says in plain words why a session that went in circles
// stopped: "the model repeated an earlier answer 2 times", "the same failing
// feedback 3 rounds in a row"; "" for the other stops.
func (r *Record) StuckNote() string {
	st := Stuck{}.recorded()
	if r.Settings.Stuck != nil {
		st = r.Settings.Stuck.recorded()
	}
	switch r.Stop {
	case StopRepeating:
		if st.Repeats == 1 {
			return "the model repeated an earlier answer"
		}
		return fmt.Sprintf("the model repeated an earlier answer %d times", st.Repeats)
	case StopNoProgress:
		return fmt.Sprintf("the same failing feedback %d rounds in a row", st.SameFeedback)
	}
	return ""
}

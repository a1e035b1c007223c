package refactor

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRecordNotesMinimised(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(false)}, Options{})
	const note = "4 of 6 hunks dropped: 3 no alert fixed, 1 adds an alert"
	if got := rec.HunksNote(); got != note {
		t.Errorf("HunksNote = %q, want %q", got, note)
	}
	if got := rec.StuckNote(); got != "" {
		t.Errorf("StuckNote of a %s session = %q", rec.Stop, got)
	}
	s := rec.Summary()
	if s.HunksNote != note || s.Hunks != 6 || s.HunksDropped != 4 || s.Salvaged || s.Rounds[0].HunksNote != note {
		t.Errorf("summary %+v", s)
	}
	if s.ModelFinal == nil || *s.ModelFinal != rec.ModelOutcome() || s.ModelFinal.LinesEdited == s.Final.LinesEdited {
		t.Errorf("summary's model view %+v, final %+v", s.ModelFinal, s.Final)
	}
}

func TestRecordNotesSalvaged(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(true)}, Options{Rounds: 1})
	if got, want := rec.HunksNote(), "salvaged, 5 of 7 hunks dropped: 4 no alert fixed, 1 adds an alert"; got != want {
		t.Errorf("HunksNote = %q, want %q", got, want)
	}
	// Without the rounds (a record of metrics only), the outcome's counts.
	rec.Rounds = nil
	if got, want := rec.HunksNote(), "salvaged, 5 of 7 hunks dropped"; got != want {
		t.Errorf("HunksNote without rounds = %q, want %q", got, want)
	}
	if !rec.Summary().Salvaged {
		t.Error("summary not salvaged")
	}
}

func TestRecordNotesWhole(t *testing.T) {
	rec, _ := runToy(t, []string{toyVerbose(false)}, Options{Rounds: 1, Minimize: Minimize{Off: true}})
	if got := rec.HunksNote(); got != "" {
		t.Errorf("HunksNote with minimisation off = %q", got)
	}
	// The summary's new keys are absent: --json reads as before.
	data, err := json.Marshal(rec.Summary())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"salvaged", "hunks", "hunks_dropped", "hunks_note", "model_final", "repeat_of"} {
		if strings.Contains(string(data), `"`+key+`"`) {
			t.Errorf("summary has %q: %s", key, data)
		}
	}
}

func TestStuckNote(t *testing.T) {
	tests := []struct {
		stop  Stop
		stuck *Stuck
		want  string
	}{
		{StopRepeating, nil, "the model repeated an earlier answer 2 times"},
		{StopRepeating, &Stuck{Repeats: 1}, "the model repeated an earlier answer"},
		{StopNoProgress, nil, "the same failing feedback 3 rounds in a row"},
		{StopNoProgress, &Stuck{SameFeedback: 5}, "the same failing feedback 5 rounds in a row"},
		{StopRounds, nil, ""},
	}
	for _, tt := range tests {
		rec := &Record{Stop: tt.stop, Settings: Settings{Stuck: tt.stuck}}
		if got := rec.StuckNote(); got != tt.want {
			t.Errorf("StuckNote(%s, %+v) = %q, want %q", tt.stop, tt.stuck, got, tt.want)
		}
	}
}

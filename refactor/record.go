package refactor

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
)

// SchemaVersion is the version of the session record format. Readers refuse
// records of a newer version.
const SchemaVersion = 1

// Record is everything about one session: enough to replay it without a
// model and to recompute every metric. It never holds an API key.
type Record struct {
	Schema   int               `json:"schema"`
	ID       string            `json:"id"`
	Created  time.Time         `json:"created"`
	File     string            `json:"file"`
	Language string            `json:"language"`
	Goal     Goal              `json:"goal"`
	Provider string            `json:"provider"`
	Model    string            `json:"model"`
	Settings Settings          `json:"settings"`
	Tools    map[string]string `json:"tools"`
	Scope    metrics.Scope     `json:"scope"`
	Original string            `json:"original"`
	Baseline *Check            `json:"baseline"`
	// Targets are the alerts the session set out to clear: the baseline's
	// alerts within the scope.
	Targets []runner.Alert `json:"targets"`
	// Messages is the whole conversation; round i sent the first
	// Rounds[i].PromptMessages of them.
	Messages []model.Message `json:"messages"`
	Rounds   []Round         `json:"rounds"`
	Stop     Stop            `json:"stop"`
	Error    string          `json:"error,omitempty"`
	Outcome  Outcome         `json:"outcome"`
	WallMS   int64           `json:"wall_ms"`
}

// Settings are the session's settings, as recorded (no secrets).
type Settings struct {
	Rounds        int      `json:"rounds"`
	TestTimeoutMS int64    `json:"test_timeout_ms"`
	BaseURL       string   `json:"base_url,omitempty"`
	Temperature   *float32 `json:"temperature,omitempty"`
	TopP          *float32 `json:"top_p,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
}

// Round is one round: the question, the answer, the check and the verdict.
type Round struct {
	Round          int          `json:"round"`
	PromptMessages int          `json:"prompt_messages"`
	Reply          model.Reply  `json:"reply"`
	Candidate      string       `json:"candidate,omitempty"`
	Check          *Check       `json:"check,omitempty"`
	Verdict        Verdict      `json:"verdict"`
	Feedback       string       `json:"feedback,omitempty"`
	Metrics        RoundMetrics `json:"metrics"`
	ModelMS        int64        `json:"model_ms"`
	CheckMS        int64        `json:"check_ms"`
	WallMS         int64        `json:"wall_ms"`
}

// RoundMetrics are one candidate's measures against the original.
type RoundMetrics struct {
	Alerts      int  `json:"alerts"`
	Fixed       int  `json:"fixed"`
	New         int  `json:"new"`
	LinesEdited int  `json:"lines_edited"`
	TestsPassed int  `json:"tests_passed"`
	TestsTotal  int  `json:"tests_total"`
	KeepsTests  bool `json:"keeps_tests"`
	Compiles    bool `json:"compiles"`
}

// Outcome is what the session offers: which round's candidate, its text,
// and its measures (the baseline's when nothing is offered). Its JSON keys
// are those of FinalSummary plus text, solved and solved_round.
type Outcome struct {
	FinalSummary
	Text        string `json:"text,omitempty"`
	Solved      bool   `json:"solved"`
	SolvedRound int    `json:"solved_round"`
}

// Offered reports whether the session has a result to apply.
func (r *Record) Offered() bool { return r.Outcome.Round > 0 }

// newID returns a random session id.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WriteRecord writes r to path atomically: readers see the old file or the
// whole new one, never a part.
func WriteRecord(path string, r *Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the session record: %w", err)
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// ReadRecord reads a session record and checks its schema version.
func ReadRecord(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the session record: %w", err)
	}
	return DecodeRecord(data, path)
}

// DecodeRecord decodes a session record, named name in messages, and
// checks its schema version.
func DecodeRecord(data []byte, name string) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decoding the session record %s: %w", name, err)
	}
	if r.Schema < 1 || r.Schema > SchemaVersion {
		return nil, fmt.Errorf("session record %s has schema %d; this fixloop reads 1 to %d", name, r.Schema, SchemaVersion)
	}
	return &r, nil
}

// WriteFileAtomic writes data to a temporary file beside path and renames it
// over path.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

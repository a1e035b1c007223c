package refactor

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	Schema  int       `json:"schema"`
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	File    string    `json:"file"`
	// RepoPath is File relative to the root of its repository (the
	// nearest directory above it with a .git), else to its Go module's
	// root, slash-separated; "" when it is in neither. It names the file
	// as the project's people know it, and lets a record made elsewhere
	// (another clone, a temporary copy) find the file in this checkout:
	// see [Record.Locate].
	RepoPath string            `json:"repo_path,omitempty"`
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
	// Eval names the evaluation run and the problem of a session that
	// fixloop eval ran; nil for the editor's and fix's sessions.
	Eval *EvalRef `json:"eval,omitempty"`
}

// EvalRef places a session in an evaluation run.
type EvalRef struct {
	Run     string `json:"run"`
	Problem string `json:"problem"`
}

// Settings are the session's settings, as recorded (no secrets).
type Settings struct {
	Rounds        int   `json:"rounds"`
	TestTimeoutMS int64 `json:"test_timeout_ms"`
	// TestWallTimeoutMS is tests.wallTimeout (0: derived from the CPU
	// limit).
	TestWallTimeoutMS int64    `json:"test_wall_timeout_ms,omitempty"`
	BaseURL           string   `json:"base_url,omitempty"`
	Temperature       *float32 `json:"temperature,omitempty"`
	TopP              *float32 `json:"top_p,omitempty"`
	MaxTokens         int      `json:"max_tokens,omitempty"`
	// Minimize and Stuck are the session's rules for offering parts of
	// candidates and for ending when it goes in circles (nil in records
	// made before they existed).
	Minimize *Minimize `json:"minimize,omitempty"`
	Stuck    *Stuck    `json:"stuck,omitempty"`
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
	// RepeatOf is the earlier round whose candidate this answer repeats
	// (after normalising line endings and trailing blanks); its check was
	// not made again but copied from that round.
	RepeatOf int `json:"repeat_of,omitempty"`
	// Search is the search of the candidate's hunks for the ones that
	// help, and Offered what it found to offer instead of the whole
	// candidate (nil: the candidate, whole, when it may be offered).
	Search  *Search  `json:"search,omitempty"`
	Offered *Offered `json:"offered,omitempty"`
	ModelMS int64    `json:"model_ms"`
	CheckMS int64    `json:"check_ms"`
	WallMS  int64    `json:"wall_ms"`
}

// RoundMetrics are one candidate's measures against the original. Fixed
// and New compare the candidate's alerts with the original's, so they are
// 0 for a candidate that does not build (Compiles false): its alerts cannot
// be compared (see [Round.AlertsCompared]).
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
	// Salvaged is set when the offered text is part of a candidate that
	// could not be offered whole; Hunks counts the hunks of the offered
	// round's candidate and HunksDropped those left out (0 and 0 when the
	// candidate is offered whole).
	Salvaged     bool `json:"salvaged,omitempty"`
	Hunks        int  `json:"hunks,omitempty"`
	HunksDropped int  `json:"hunks_dropped,omitempty"`
	// Model is what the session would offer with the model's candidates
	// whole: the best candidate's round and measures, the papers' view
	// (Round 0 when none could be offered whole). Only sessions that
	// minimise set it: see [Record.ModelOutcome].
	Model FinalSummary `json:"model,omitzero"`
}

// ModelOutcome is the outcome in the papers' view: what the session offers
// with the model's candidates whole. It is the outcome itself for a
// session that does not minimise (or was recorded before minimisation).
func (r *Record) ModelOutcome() FinalSummary {
	if m := r.Settings.Minimize; m == nil || m.Off {
		return r.Outcome.FinalSummary
	}
	return r.Outcome.Model
}

// fill sets the measures of the offered version m, of a session with
// targets targets.
func (f *FinalSummary) fill(m RoundMetrics, targets int) {
	f.TestsPassed, f.TestsTotal = m.TestsPassed, m.TestsTotal
	f.Fixed, f.New, f.LinesEdited = m.Fixed, m.New, m.LinesEdited
	f.AlertsAfter = targets - m.Fixed + m.New
}

// AlertsCompared reports whether the round's alerts were compared with the
// original's: it had a candidate, and the candidate builds.
func (r *Round) AlertsCompared() bool { return r.Check != nil && r.Metrics.Compiles }

// AlertsText describes the round's alerts for people: "alerts 4, fixed 3,
// new 1", or why they were not compared ("alerts not compared: candidate
// does not build", "alerts not compared: no candidate").
func (r *Round) AlertsText() string {
	switch {
	case r.Check == nil:
		return "alerts not compared: no candidate"
	case !r.Metrics.Compiles:
		return "alerts not compared: candidate does not build"
	}
	m := r.Metrics
	return fmt.Sprintf("alerts %d, fixed %d, new %d", m.Alerts, m.Fixed, m.New)
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

// ErrNotRecord is the error, wrapped, for a JSON file that is not a
// session record at all (it has no "schema" key), such as another tool's
// data kept beside records.
var ErrNotRecord = errors.New("not a fixloop session record")

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
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("decoding the session record %s: %w", name, err)
	}
	if _, ok := probe["schema"]; !ok {
		// Every record fixloop ever wrote has a schema version.
		return nil, fmt.Errorf("%s: %w (it has no \"schema\" key)", name, ErrNotRecord)
	}
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

// repoPath returns file relative to the root of its repository, else of
// its Go module, slash-separated; "" when it is in neither.
func repoPath(file string) string {
	dir := filepath.Dir(file)
	for _, root := range []string{runner.RepoRoot(dir), runner.ModuleRoot(dir)} {
		if root == "" {
			continue
		}
		if rel, ok := runner.Rel(root, file); ok {
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

// Name is the file as its project's people know it: RepoPath, else File.
func (r *Record) Name() string {
	if r.RepoPath != "" {
		return r.RepoPath
	}
	return r.File
}

// Locate finds the recorded file on this machine, for checking it with the
// real tools: File when it exists, else RepoPath below the repository that
// holds the record file recordPath (when it is a file: "" for a record from
// a store), else RepoPath below the current directory's repository. Each
// search goes from the directory up to the repository root (a directory
// with .git) or the filesystem root, so a checkout without .git is found
// too. The error names the file by RepoPath and says where it looked.
func (r *Record) Locate(recordPath string) (string, error) {
	if r.File != "" {
		if _, err := os.Stat(r.File); err == nil {
			return r.File, nil
		}
	}
	rel := filepath.FromSlash(r.RepoPath)
	if r.RepoPath == "" || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("the recorded file %s is not on this machine: %w", r.File, fs.ErrNotExist)
	}
	var starts []string
	if recordPath != "" {
		if abs, err := filepath.Abs(recordPath); err == nil {
			starts = append(starts, filepath.Dir(abs))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		for dir := start; ; {
			p := filepath.Join(dir, rel)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("the recorded file %s is not on this machine (looked for it below %s and the directories above, up to the repository root): %w",
		r.RepoPath, strings.Join(starts, " and "), fs.ErrNotExist)
}

// WriteResult writes text to path atomically (WriteFileAtomic, with the
// file's permissions), only if path still holds original.
func WriteResult(path string, original []byte, text string) error {
	now, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("re-reading %s: %w", path, err)
	}
	if !bytes.Equal(now, original) {
		return fmt.Errorf("%s changed during the session: not written (run again on the new text)", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return WriteFileAtomic(path, []byte(text), info.Mode().Perm())
}

package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/store"
)

// lintEvalSize is the number of samples in LintEval's benchmark.
const lintEvalSize = 13061

// fillStore stores n varied sessions (both goals, four languages, three
// models, LintEval samples, per-category counts) in a new SQLite store,
// in one transaction, and returns its path.
func fillStore(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sessions.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	langs := []string{"go", "python", "cpp", "java"}
	models := []string{"gpt-4o", "llama-3.1-70b", "qwen2.5-coder"}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		s := aggregate.Session{
			ID: fmt.Sprintf("s%05d", i), Created: t0.Add(time.Duration(i) * time.Second), Workspace: "/ws",
			File: fmt.Sprintf("/ws/p%d/main.go", i), Language: langs[i%4], Provider: "openai", Model: models[i%3], K: 3,
			AlertsBefore: 1 + i%9,
		}
		if i%3 == 0 {
			s.Goal = "repair"
			s.SolvedRound = i % 4
			s.Verdicts = []string{"wrong_answer", "compile_error", "accepted"}[:1+i%3]
			s.TestsPassed = []int{1, 2, 3}[:1+i%3]
		} else {
			s.Goal = "refactor"
			sample := aggregate.SampleCounts{Round: 1, Passed: i%5 != 0, Fixed: i % 4, New: i % 2, LinesEdited: 2 + i%7}
			s.LintEval, s.LintEvalK = &sample, &sample
			s.Passed = sample.Passed && sample.Fixed > sample.New
			if s.Passed {
				s.Fixed, s.New, s.LinesEdited = sample.Fixed, sample.New, sample.LinesEdited
			}
			s.ByCategory = map[runner.Category]aggregate.CategoryCounts{"Style": {Before: s.AlertsBefore, Fixed: s.Fixed}}
		}
		data, err := json.Marshal(s)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO sessions (id, created, workspace, file, language, goal, provider, model, k, solved_round, passed,
			alerts_before, fixed, "new", lines_edited, session_json, record_json, mode, saved, run, problem)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'metrics', ?, 'bench', ?)`,
			s.ID, s.Created.Format("2006-01-02T15:04:05.000000000Z"), s.Workspace, s.File, s.Language, s.Goal, s.Provider, s.Model,
			s.K, s.SolvedRound, s.Passed, s.AlertsBefore, s.Fixed, s.New, s.LinesEdited, string(data), s.Created.Format(time.RFC3339), s.ID); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkReportLintEvalSize runs fixloop report over 13,061 stored
// sessions, LintEval's size: reading them from the SQLite store, scoring
// them with every breakdown and bootstrap interval, and printing the
// table, the JSON and the LaTeX tables. Its baseline, measured in the same
// loop, alternately, is reading the same sessions from the store alone
// (store.Sessions): "report/read" is how many times that the whole report
// takes.
func BenchmarkReportLintEvalSize(b *testing.B) {
	if testing.Short() {
		b.Skip("fills a store with 13,061 sessions")
	}
	db := fillStore(b, lintEvalSize)
	read := func() time.Duration {
		t0 := time.Now()
		st, err := store.Open(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		sessions, err := st.Sessions(context.Background(), store.Filter{})
		if err != nil || len(sessions) != lintEvalSize {
			b.Fatalf("%d sessions, %v", len(sessions), err)
		}
		return time.Since(t0)
	}
	for _, format := range []string{"table", "json", "latex"} {
		b.Run(format, func(b *testing.B) {
			var reads, reports time.Duration
			for b.Loop() {
				reads += read()
				t0 := time.Now()
				code, out, errOut := run(b, "report", "--store", db, "--format", format)
				reports += time.Since(t0)
				if code != ExitOK || (format != "latex" && !strings.Contains(out, "13061")) || !strings.Contains(out, "all") && format == "latex" {
					b.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
			}
			b.ReportMetric(float64(reports)/float64(reads), "report/read")
		})
	}
}

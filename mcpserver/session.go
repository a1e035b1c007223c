package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/toolset"
)

// The session tools' names.
const (
	ToolRepair   = "fixloop_repair"
	ToolRefactor = "fixloop_refactor"
)

// SessionInput is the input of fixloop_repair and fixloop_refactor.
type SessionInput struct {
	Path   string     `json:"path" jsonschema:"the file: absolute, or relative to the first root"`
	Rounds int        `json:"rounds,omitempty" jsonschema:"the round cap (default: rounds from .fixloop.yaml: 10 for repair, 3 for refactor)"`
	Range  *LineRange `json:"range,omitempty" jsonschema:"refactor only the alerts in these lines"`
	Write  bool       `json:"write,omitempty" jsonschema:"replace the file with the result (atomically), only when the result keeps every test that passed and the file did not change meanwhile; default false: nothing is written"`
}

// LineRange is a range of lines, 1-based and inclusive.
type LineRange struct {
	StartLine int `json:"start_line" jsonschema:"the first line, 1-based"`
	EndLine   int `json:"end_line" jsonschema:"the last line, inclusive"`
}

// SessionOutput is their structured output.
type SessionOutput struct {
	// Summary is what `fixloop fix --json` prints.
	Summary refactor.Summary `json:"summary" jsonschema:"the session, as fixloop fix --json prints it: rounds with verdicts and measures, the final result's measures, why it stopped"`
	// Diff is the unified diff of the offered result ("" when none).
	Diff string `json:"diff" jsonschema:"the unified diff from the file to the result (empty when no result keeps the tests and improves the file)"`
	// Written reports whether the file was replaced; WriteNote why not,
	// when write was asked.
	Written   bool   `json:"written"`
	WriteNote string `json:"write_note,omitempty"`
}

func (s *Server) addSessionTools() {
	desc := "Runs fixloop's checked rounds on a file with the configured provider (a model, or the offline rules when none is configured): " +
		"each candidate is checked in the sandbox with the compiler, the linters and the tests, and what failed is fed back. " +
		"Returns the result's diff and measures; writes nothing unless write is true."
	for _, tool := range []struct {
		name, title, what string
		goal              refactor.Goal
	}{
		{ToolRepair, "fixloop repair", "Repair: make the file build and pass its tests. ", refactor.GoalRepair},
		{ToolRefactor, "fixloop refactor", "Refactor: clear the linters' alerts while every test that passed keeps passing. ", refactor.GoalRefactor},
	} {
		goal := tool.goal
		mcp.AddTool(s.mcp, &mcp.Tool{
			Name: tool.name, Title: tool.title, Description: tool.what + desc,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
		}, func(ctx context.Context, req *mcp.CallToolRequest, in SessionInput) (*mcp.CallToolResult, SessionOutput, error) {
			return s.session(ctx, req, goal, in)
		})
	}
}

// session runs a session on the file, as fixloop fix does, and records it.
func (s *Server) session(ctx context.Context, req *mcp.CallToolRequest, goal refactor.Goal, in SessionInput) (*mcp.CallToolResult, SessionOutput, error) {
	if in.Rounds < 0 || in.Rounds > config.MaxRounds {
		return nil, SessionOutput{}, fmt.Errorf("rounds %d: give 1 to %d, or leave it out for the configured cap", in.Rounds, config.MaxRounds)
	}
	f, err := s.resolve(in.Path)
	if err != nil {
		return nil, SessionOutput{}, s.toolError(err)
	}
	ctx = f.context(ctx)
	original, err := os.ReadFile(f.abs)
	if err != nil {
		return nil, SessionOutput{}, s.toolError(fmt.Errorf("reading %s: %w", f.path, err))
	}
	settings := toolset.ProviderSettings(f.cfg)
	if s.opts.Provider != nil {
		settings = s.opts.Provider(f.cfg)
	}
	settings.Logger = s.logger
	prov, note, err := provider.New(settings)
	if err != nil {
		return nil, SessionOutput{}, s.toolError(fmt.Errorf("the provider: %w", err))
	}
	if note != "" {
		s.logger.Info(note)
	}
	rounds := in.Rounds
	if rounds == 0 {
		rounds = f.rounds(goal)
	}
	var scope metrics.Scope
	if in.Range != nil {
		scope = metrics.Scope{StartLine: in.Range.StartLine, EndLine: in.Range.EndLine}
	}
	progress := newProgress(ctx, req)
	rec, err := refactor.Run(ctx, f.abs, string(original), refactor.Options{
		Goal: goal, Rounds: rounds, Scope: scope, Provider: prov, Checker: s.checker(f),
		Settings: refactor.Settings{BaseURL: settings.BaseURL, Temperature: settings.Temperature, TopP: settings.TopP, MaxTokens: settings.MaxTokens},
		Minimize: toolset.Minimize(f.cfg), Stuck: toolset.Stuck(f.cfg),
		Tools: toolset.SessionTools(s.opts.Tools, f.cfg, f.abs), Logger: s.logger,
		Observer: refactor.Observer{
			RoundStart: func(round, rounds int) {
				progress.sendOf(fmt.Sprintf("round %d/%d: asking the %s provider", round, rounds, prov.Name()), float64(round-1), float64(rounds))
			},
			Searching: func(round, n int) {
				// Progress must grow with each notification: the n-th
				// check lies between the round's start and its end.
				step := float64(round-1) + 1 - 1/float64(n+1)
				progress.sendOf(fmt.Sprintf("round %d/%d: keeping only the hunks that help: checking part %d of the candidate", round, rounds, n), step, float64(rounds))
			},
			RoundDone: func(r *refactor.Round) {
				msg := fmt.Sprintf("round %d/%d: %s", r.Round, rounds, r.Verdict)
				if note := r.HunksNote(); note != "" {
					msg += " (" + note + ")"
				}
				progress.sendOf(msg, float64(r.Round), float64(rounds))
			},
		},
	})
	if err != nil {
		return nil, SessionOutput{}, s.toolError(err)
	}
	out := SessionOutput{Summary: rec.Summary()}
	if rec.Offered() {
		name := filepath.Base(f.abs)
		out.Diff = udiff.Unified("a/"+name, "b/"+name, rec.Original, rec.Outcome.Text)
	}
	if in.Write {
		switch {
		case !rec.Offered():
			out.WriteNote = "not written: no result keeps every test that passed and improves the file"
		default:
			// An offered result builds and keeps every test that passed.
			if err := refactor.WriteResult(f.abs, original, rec.Outcome.Text); err != nil {
				out.WriteNote = "not written: " + err.Error()
			} else {
				out.Written = true
			}
		}
	}
	s.record(rec, f.cfg)
	s.redact(&out)
	return textResult(s.opts.Redactor.String(sessionSummary(f.path, rec, &out))), out, nil
}

// sessionSummary is the session tools' text: the rounds, the result, the
// diff.
func sessionSummary(path string, rec *refactor.Record, out *SessionOutput) string {
	var b strings.Builder
	sum := out.Summary
	fmt.Fprintf(&b, "%s %s with %s: stopped (%s)", rec.Goal, path, strings.TrimSpace(sum.Provider+" "+sum.Model), sum.Stop)
	if why := rec.StuckNote(); why != "" {
		fmt.Fprintf(&b, ": %s", why)
	}
	if sum.Error != "" {
		fmt.Fprintf(&b, ": %s", sum.Error)
	}
	b.WriteString("\n")
	for _, r := range sum.Rounds {
		fmt.Fprintf(&b, "round %d: %s (tests %d/%d, fixed %d, new %d, %d lines edited)", r.Round, r.Verdict, r.TestsPassed, r.TestsTotal, r.Fixed, r.New, r.LinesEdited)
		if r.RepeatOf > 0 {
			fmt.Fprintf(&b, "; the same answer as round %d", r.RepeatOf)
		}
		if r.HunksNote != "" {
			fmt.Fprintf(&b, "; %s", r.HunksNote)
		}
		b.WriteString("\n")
	}
	o := sum.Final
	if out.Diff == "" {
		b.WriteString("no result: nothing keeps every test that passed and improves the file\n")
	} else {
		fmt.Fprintf(&b, "result: round %d: tests %d/%d, alerts %d -> %d, fixed %d, new %d, %d lines edited", o.Round, o.TestsPassed, o.TestsTotal, o.AlertsBefore, o.AlertsAfter, o.Fixed, o.New, o.LinesEdited)
		if sum.HunksNote != "" {
			// What the diff leaves out of the model's answer, and why.
			fmt.Fprintf(&b, "; %s", sum.HunksNote)
		}
		b.WriteString("\n")
	}
	switch {
	case out.Written:
		b.WriteString("written to " + path + "\n")
	case out.WriteNote != "":
		b.WriteString(out.WriteNote + "\n")
	}
	b.WriteString(out.Diff)
	return b.String()
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/report"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

// ToolReport is the report tool's name.
const ToolReport = "fixloop_report"

// ReportInput is fixloop_report's input.
type ReportInput struct {
	Since   string `json:"since,omitempty" jsonschema:"only sessions at or after this time: RFC 3339, a date (2026-11-01) or a duration ago (168h)"`
	GroupBy string `json:"group_by,omitempty" jsonschema:"break the scores down by language, model, provider, goal, alerts or category (model shows coding agents as agent: CLIENT)"`
}

// ReportOutput is fixloop_report's structured output: the scores of
// `fixloop report --format json`, for the sessions in the store.
type ReportOutput struct {
	// Store is the store read, its password redacted.
	Store    string `json:"store"`
	Sessions int    `json:"sessions"`
	// Scores are the scores over every session (without breakdowns);
	// Groups the same scores per value of group_by.
	Scores map[string]any            `json:"scores" jsonschema:"the report's scores over all the sessions (as fixloop report --format json, without by)"`
	Groups map[string]map[string]any `json:"groups,omitempty" jsonschema:"the same scores per value of group_by"`
}

func (s *Server) addReportTool() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolReport,
		Title: "fixloop report",
		Description: "The scores of `fixloop report` over the sessions in the session store (the editor's, fixloop fix's, and the checks of coding agents, shown as agent: CLIENT): " +
			"pass@1, ISR@k, MIS, fix rates, Reduction@P, New@P and more, optionally since a time and grouped by a dimension.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.report)
}

// report is fixloop_report. It reads --store, else the first root's
// store.dsn, else the default store, after the sessions this server
// recorded there reach it.
func (s *Server) report(ctx context.Context, _ *mcp.CallToolRequest, in ReportInput) (*mcp.CallToolResult, ReportOutput, error) {
	if in.GroupBy != "" && !slices.Contains(aggregate.Dimensions, in.GroupBy) {
		return nil, ReportOutput{}, fmt.Errorf("group_by %q: use one of %s", in.GroupBy, strings.Join(aggregate.Dimensions, ", "))
	}
	since, err := store.ParseWhen(in.Since, time.Now())
	if err != nil {
		return nil, ReportOutput{}, fmt.Errorf("since: %w", err)
	}
	cfg, problems := toolset.ResolveConfig(toolset.ConfigRoot(filepath.Join(s.roots[0], config.FileName)))
	if len(problems) > 0 {
		return nil, ReportOutput{}, s.toolError(fmt.Errorf("the configuration of %s: %w", s.roots[0], problems))
	}
	dsn := s.storeDSN(cfg)
	if dsn == "off" {
		return nil, ReportOutput{}, fmt.Errorf("no session store: fixloop mcp runs with --store off (or store.dsn: off); start it with a store to report on")
	}
	s.flush(ctx, dsn)
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, ReportOutput{}, s.toolError(err)
	}
	defer st.Close()
	sessions, err := st.Sessions(ctx, store.Filter{Since: since})
	if err != nil {
		return nil, ReportOutput{}, s.toolError(err)
	}
	scores := aggregate.Compute(sessions)
	out := ReportOutput{Store: store.Redact(dsn), Sessions: scores.Sessions}
	all := *scores
	all.By = nil
	if all.Offered != nil {
		// The offered view's scores, without its breakdowns either.
		offered := *all.Offered
		offered.By = nil
		all.Offered = &offered
	}
	if out.Scores, err = asMap(all); err != nil {
		return nil, ReportOutput{}, err
	}
	if in.GroupBy != "" {
		out.Groups = make(map[string]map[string]any)
		for value, sc := range scores.By[in.GroupBy] {
			if out.Groups[value], err = asMap(sc); err != nil {
				return nil, ReportOutput{}, err
			}
		}
	}
	s.redact(&out)
	var table bytes.Buffer
	if err := report.Table(&table, scores); err != nil {
		return nil, ReportOutput{}, err
	}
	return textResult(s.opts.Redactor.String(table.String())), out, nil
}

// asMap is v as its JSON object.
func asMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(b, &m)
	return m, err
}

// flush waits (a little) for the sessions recorded for dsn to reach it.
func (s *Server) flush(ctx context.Context, dsn string) {
	s.mu.Lock()
	var ws []*store.Writer
	for k, w := range s.writers {
		if k.dsn == dsn {
			ws = append(ws, w)
		}
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, flushOnClose)
	defer cancel()
	for _, w := range ws {
		if err := w.Flush(ctx); err != nil {
			s.logger.Warn("sessions not yet in the store", "store", store.Redact(dsn), "error", err)
		}
	}
}

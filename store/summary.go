package store

import (
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
)

// Summary is what the store keeps of a session for the scores: the
// aggregate view of the record (with, for refactor, its LintEval samples:
// see [aggregate.FromRecord]), with workspace as given (when not empty).
func Summary(rec *refactor.Record, workspace string) aggregate.Session {
	s := aggregate.FromRecord(rec)
	if workspace != "" {
		s.Workspace = workspace
	}
	return s
}

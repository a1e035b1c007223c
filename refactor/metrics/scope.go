package metrics

import "github.com/fixloop/fixloop/runner"

// Scope selects the alerts a session targets: the whole file, the alerts
// overlapping a range of lines, or alerts picked one by one.
type Scope struct {
	// StartLine and EndLine bound a range of lines, 1-based and inclusive.
	// Zero leaves that end open; both zero means no range.
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// Alerts, when set, picks alerts explicitly. An alert is picked when it
	// has the key (see [KeyOf]) and line of one of these; each entry picks at
	// most one alert, so picking one of two identical alerts picks one.
	Alerts []runner.Alert `json:"alerts,omitempty"`
}

// IsWholeFile reports whether s targets every alert of the file: no range
// and no explicit alerts.
func (s Scope) IsWholeFile() bool {
	return s.StartLine <= 0 && s.EndLine <= 0 && len(s.Alerts) == 0
}

// Select returns the alerts s targets, in their order. With both a range and
// explicit alerts, an alert must satisfy both. An alert overlaps the range
// when any of its lines, Line through EndLine, is in it; alerts about the
// whole file (line 0) are never in a range.
func (s Scope) Select(alerts []runner.Alert) []runner.Alert {
	type pick struct {
		key  Key
		line int
	}
	var wanted map[pick]int
	if len(s.Alerts) > 0 {
		wanted = make(map[pick]int, len(s.Alerts))
		for _, a := range s.Alerts {
			wanted[pick{KeyOf(a), a.Line}]++
		}
	}
	var out []runner.Alert
	for _, a := range alerts {
		if !s.inRange(a) {
			continue
		}
		if wanted != nil {
			p := pick{KeyOf(a), a.Line}
			if wanted[p] == 0 {
				continue
			}
			wanted[p]--
		}
		out = append(out, a)
	}
	return out
}

// inRange reports whether a overlaps the line range of s.
func (s Scope) inRange(a runner.Alert) bool {
	if s.StartLine <= 0 && s.EndLine <= 0 {
		return true
	}
	if a.Line <= 0 {
		return false
	}
	last := max(a.EndLine, a.Line)
	if s.StartLine > 0 && last < s.StartLine {
		return false
	}
	if s.EndLine > 0 && a.Line > s.EndLine {
		return false
	}
	return true
}

package main

// The driver's pure logic: statistics, matching publications to edits,
// positions, the edits' text, and parsing /proc and the servers' logs. None
// of it touches a process, a file or the network (logic_test.go).

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// percentile returns the p-th percentile (0..100) of xs by linear
// interpolation between the closest ranks (p50 of an even count is the
// mean of the middle two); NaN for no values.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if p <= 0 {
		return s[0]
	}
	if p >= 100 {
		return s[len(s)-1]
	}
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	frac := rank - float64(lo)
	return s[lo] + (s[hi]-s[lo])*frac
}

// geomean is the geometric mean of the positive, finite values of xs; NaN
// when there are none.
func geomean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// ratio is a/b, NaN when either is missing or b is 0.
func ratio(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return a / b
}

// fmtMS formats milliseconds for the table ("-" when missing).
func fmtMS(ms float64) string {
	switch {
	case math.IsNaN(ms):
		return "-"
	case ms >= 100:
		return fmt.Sprintf("%.0f", ms)
	default:
		return fmt.Sprintf("%.1f", ms)
	}
}

// fmtRatio formats a ratio for the table ("-" when missing).
func fmtRatio(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	if r < 0.1 {
		return fmt.Sprintf("%.3f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// diag is the part of a published diagnostic the benchmark looks at.
type diag struct {
	Line    uint32 // 0-based
	Source  string
	Message string
}

// pub is one textDocument/publishDiagnostics for one document.
type pub struct {
	At         time.Time
	Version    int32
	HasVersion bool
	Diags      []diag
}

// answer finds, in pubs (in arrival order), the publication that answers an
// edit that made the document version v and was sent at t0: the first one
// that arrived at or after t0 with that version; from a server that sends no
// versions, the first one after t0 that passes check. It returns its index
// (-1 if none yet) and whether it passes check (the edit's diagnostic is
// there).
func answer(pubs []pub, t0 time.Time, v int32, check func(pub) bool) (int, bool) {
	for i, p := range pubs {
		if p.At.Before(t0) {
			continue
		}
		if p.HasVersion {
			if p.Version == v {
				return i, check(p)
			}
			continue
		}
		if check(p) {
			return i, true
		}
	}
	return -1, false
}

// reflecting finds the first publication at or after t0 for a document that
// was not edited itself (a dependent, at version v) that passes check: the
// dependent's diagnostics reflect an edit elsewhere. Publications for
// another version of it are skipped; -1 if none yet.
func reflecting(pubs []pub, t0 time.Time, v int32, check func(pub) bool) int {
	for i, p := range pubs {
		if p.At.Before(t0) || (p.HasVersion && p.Version != v) {
			continue
		}
		if check(p) {
			return i
		}
	}
	return -1
}

// interimEmpty counts the publications at or after t0 and before index end
// that have no diagnostics at all: an editor would have shown the file
// clean for a moment.
func interimEmpty(pubs []pub, t0 time.Time, end int) int {
	n := 0
	for i := 0; i < end && i < len(pubs); i++ {
		if !pubs[i].At.Before(t0) && len(pubs[i].Diags) == 0 {
			n++
		}
	}
	return n
}

// endsOnVersion reports whether the publications at or after t0 end on
// version last: the last one has that version (an older version published
// after it would leave the editor showing stale diagnostics).
func endsOnVersion(pubs []pub, t0 time.Time, last int32) bool {
	var final *pub
	for i := range pubs {
		if !pubs[i].At.Before(t0) {
			final = &pubs[i]
		}
	}
	return final != nil && (!final.HasVersion || final.Version == last)
}

// hasDiag reports whether p has a diagnostic on line (or any line, when
// line < 0) whose message contains every one of subs.
func hasDiag(p pub, line int, subs ...string) bool {
outer:
	for _, d := range p.Diags {
		if line >= 0 && int(d.Line) != line {
			continue
		}
		for _, s := range subs {
			if !strings.Contains(d.Message, s) {
				continue outer
			}
		}
		return true
	}
	return false
}

// lspPos is an LSP position: a line and a UTF-16 code unit offset.
type lspPos struct{ Line, Char uint32 }

// posAt returns the LSP position (UTF-16 columns) of byte offset off in
// text; an offset past the end is clamped to the end.
func posAt(text string, off int) lspPos {
	if off > len(text) {
		off = len(text)
	}
	var p lspPos
	lineStart := 0
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			p.Line++
			lineStart = i + 1
		}
	}
	for _, r := range text[lineStart:off] {
		if r == utf8.RuneError {
			p.Char++
			continue
		}
		if r >= 0x10000 {
			p.Char += 2
		} else {
			p.Char++
		}
	}
	return p
}

// lineOf returns the 0-based line of byte offset off in text.
func lineOf(text string, off int) int {
	return strings.Count(text[:min(off, len(text))], "\n")
}

// tail is the code an edit appends to a file: a function that is unique
// to the edit (its name and constant hold k) with one self-assignment,
// which both servers report (the vet analyzer assign; staticcheck SA4018).
// It returns the text and the 0-based line, within the text, of the
// self-assignment.
func tail(k int) (string, int) {
	return fmt.Sprintf("\nfunc fixloopBench%d() {\n\tv := %d\n\tv = v\n\t_ = v\n}\n", k, k), 3
}

// selfAssign is the diagnostic a tail introduces.
const selfAssign = "self-assignment"

// declNameAt returns the byte offset of name in the declaration
// "func name(" (or "func name[") that starts a line of text; -1 if there is
// none.
func declNameAt(text, name string) int {
	for _, pre := range []string{"func " + name + "(", "func " + name + "["} {
		if strings.HasPrefix(text, pre) {
			return len("func ")
		}
		if i := strings.Index(text, "\n"+pre); i >= 0 {
			return i + 1 + len("func ")
		}
	}
	return -1
}

// buildConstraint returns the expression of the file's //go:build line, ""
// if it has none.
func buildConstraint(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "//go:build ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "//go:build "))
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return ""
}

// statusKB returns the value, in kB, of field (such as "VmHWM") in the text
// of /proc/PID/status.
func statusKB(status, field string) (int64, bool) {
	for _, line := range strings.Split(status, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == field+":" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// procStat is what the benchmark reads of /proc/PID/stat.
type procStat struct {
	PPid         int
	UTime, STime int64 // clock ticks
}

// parseProcStat parses /proc/PID/stat, whose second field (the command
// name, in parentheses) may itself hold spaces and parentheses.
func parseProcStat(s string) (procStat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("no command name in %q", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("short stat %q", s)
	}
	var st procStat
	var err error
	if st.PPid, err = strconv.Atoi(f[1]); err != nil {
		return procStat{}, err
	}
	if st.UTime, err = strconv.ParseInt(f[11], 10, 64); err != nil {
		return procStat{}, err
	}
	if st.STime, err = strconv.ParseInt(f[12], 10, 64); err != nil {
		return procStat{}, err
	}
	return st, nil
}

// descendants returns every process below root in the parent map
// (pid -> ppid), not root itself.
func descendants(parents map[int]int, root int) []int {
	children := make(map[int][]int)
	for pid, pp := range parents {
		children[pp] = append(children[pp], pid)
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	sort.Ints(out)
	return out
}

// reasonRE takes the reason out of fixloop's debug line for a fallback.
var reasonRE = regexp.MustCompile(`reason=("(?:[^"\\]|\\.)*"|\S+)`)

// fallbackReason recognises fixloop's debug log line for an incremental
// pass that had to fall back to a full load of the package graph
// (msg="full load needed" reason=..., in later versions msg="full load
// instead of an incremental pass" reason=...) and returns its reason.
func fallbackReason(line string) (string, bool) {
	if !strings.Contains(line, `msg="full load`) || strings.Contains(line, `msg="full load" `) ||
		(!strings.Contains(line, " reason=") && !strings.Contains(line, `msg="full load needed"`)) {
		return "", false
	}
	m := reasonRE.FindStringSubmatch(line)
	if m == nil {
		return "?", true
	}
	r := m[1]
	if u, err := strconv.Unquote(r); err == nil {
		r = u
	}
	return r, true
}

// whyRE takes the why out of fixloop's debug line for a full load.
var whyRE = regexp.MustCompile(`why=("(?:[^"\\]|\\.)*"|\S+)`)

// fullLoad recognises fixloop's debug line for a completed full load of a
// package graph; incremental says whether later edits of the package can
// be checked incrementally, and why, when they cannot, fixloop's reason.
func fullLoad(line string) (ok, incremental bool, why string) {
	if !strings.Contains(line, `msg="full load" `) && !strings.HasSuffix(line, `msg="full load"`) {
		return false, false, ""
	}
	incremental = strings.Contains(line, " incremental=true")
	if m := whyRE.FindStringSubmatch(line); m != nil {
		why = m[1]
		if u, err := strconv.Unquote(why); err == nil {
			why = u
		}
	}
	return true, incremental, why
}

// isIncrementalPass recognises fixloop's debug line for an incremental
// pass (the edited package re-checked against cached dependencies).
func isIncrementalPass(line string) bool {
	return strings.Contains(line, `msg="incremental pass"`)
}

// testVariantRE shortens fixloop's reason for a package that cannot be
// checked incrementally to its kind.
var testVariantRE = regexp.MustCompile(`^dependency \S+ \[\S+\] is a test variant$`)

// shortWhy is the kind of a reason, for the report: the package paths of
// a test-variant dependency are left out.
func shortWhy(why string) string {
	if testVariantRE.MatchString(why) {
		return "a dependency is a test variant (the package's tests import a package that imports it)"
	}
	return why
}

// modDownload is what the benchmark reads of `go mod download -json`.
type modDownload struct {
	Path, Version, Dir, GoMod, Error string
}

// parseModDownload parses the output of `go mod download -json M@V`.
func parseModDownload(out []byte) (modDownload, error) {
	var m modDownload
	if err := json.Unmarshal(out, &m); err != nil {
		return m, fmt.Errorf("go mod download -json: %w", err)
	}
	if m.Error != "" {
		return m, fmt.Errorf("go mod download %s@%s: %s", m.Path, m.Version, m.Error)
	}
	if m.Dir == "" {
		return m, fmt.Errorf("go mod download %s@%s: no Dir", m.Path, m.Version)
	}
	return m, nil
}

// cpuModel returns the model name from the text of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
